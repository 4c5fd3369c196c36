"""Run the deck-api emulator for `make demo` until SIGTERM or SIGINT.

Usage: python scripts/demo_emulator.py CONNECTION_FILE

Starts tests.emulator.EmulatorServer on 127.0.0.1 (a free port) and, once it listens, writes
{"endpoint": ..., "token": ...} to CONNECTION_FILE (mode 0600) so scripts/demo.sh can export
NUBES_API_ENDPOINT and NUBES_API_TOKEN for the playbook.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# Operations finish quickly in the demo, but still go through the create/poll cycle.
DEMO_OP_DURATION_SECONDS = 0.5


def write_connection_file(path: Path, endpoint: str, token: str) -> None:
    """Write the endpoint and token readable by the owner only, atomically."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"endpoint": endpoint, "token": token}, handle)
    tmp.replace(path)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO_ROOT))
    try:
        from tests.emulator import EmulatorServer
        from tests.emulator.stopsignal import StopSignals
    except ImportError as exc:
        print(f"demo: the emulator (tests/emulator) is not available: {exc}", file=sys.stderr)
        return 1
    # lock-free handlers: an Event.set() in a handler can deadlock on the lock its own wait() holds
    with StopSignals() as stop, EmulatorServer(seed=1, op_duration=DEMO_OP_DURATION_SECONDS) as emu:
        write_connection_file(Path(argv[1]), emu.endpoint, emu.token)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
