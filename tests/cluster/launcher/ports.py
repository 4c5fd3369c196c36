"""Free TCP ports on 127.0.0.1."""

from __future__ import annotations

import socket


def free_ports(count: int) -> list[int]:
    """Distinct ports that were free a moment ago (all sockets are held open until all are chosen)."""
    sockets: list[socket.socket] = []
    try:
        for _index in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
