"""The browser side of the docs site tests: an HTTP server on 127.0.0.1 serving the built site with a log of what
it served, and Debian's chromium, headless, dumping the DOM of a page it loaded from there."""

from __future__ import annotations

import functools
import subprocess
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, List, Tuple

# The flags chromium needs on these machines: as root (--no-sandbox), without a GPU, and with none of its own
# connections to the outside (closed network: refused or unresolvable, at every start).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
)
BROWSER_TIMEOUT = 120


class SiteServer:
    """build/site/ served on 127.0.0.1 (a free port), with a log of every request and its status."""

    def __init__(self, site: Path) -> None:
        self.requests: List[Tuple[str, int]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_request(self, code: Any = "-", size: Any = "-") -> None:
                server.record(self.path, int(code))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/{path}"

    def record(self, path: str, status: int) -> None:
        with self.lock:
            self.requests.append((path, status))

    def take_requests(self) -> List[Tuple[str, int]]:
        """The requests served since the last call, with their HTTP status."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)


class Chromium:
    """Debian's chromium (package chromium), headless, with a fresh profile per page."""

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def dump_dom(self, url: str) -> str:
        """The DOM of the page at `url` once chromium loaded it (and ran its scripts), serialised as HTML."""
        with tempfile.TemporaryDirectory(prefix="nubes-chromium-") as profile:
            result = subprocess.run(
                [self.binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                capture_output=True,
                text=True,
                timeout=BROWSER_TIMEOUT,
                check=False,
            )
        assert result.returncode == 0, f"chromium failed on {url} (exit {result.returncode}):\n{result.stderr[-3000:]}"
        assert "<html" in result.stdout, f"chromium dumped no page for {url}:\n{result.stderr[-3000:]}"
        return result.stdout
