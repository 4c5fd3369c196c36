# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Local-file state backend: one JSON file, fcntl locks, atomic replace, mode 0600.

- A global lock file (`<state>.lock`) guards each read-modify-write of the JSON file.
- Per-resource lock files (`<state>.locks/<sha256>.lock`) are held across lookup + create, so
  parallel forks and parallel playbooks on one controller never create duplicates (P42, beyond).
- Writes go to a temporary file in the same directory, are fsynced, then `os.replace`d.
- Every read is validated (state_format.py, issue 24): a damaged file or one of an unknown version is an error that
  names the file, before any API call, and is never overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import tempfile
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError, StateWriteError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import FileLease
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_format import FORMAT_VERSION, check_document
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import Key, StateBackend

FIX = (
    "Restore the file from a backup, or correct or remove what is named here (a record removed is found again by "
    "name, and its instance adopted with adopt_existing_on_create=true)"
)


def _encode(key: Key) -> str:
    return json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))


class FileBackend(StateBackend):
    """State in one JSON file: {"version": 1, "instances": {key: record}, "subresources": {...}}."""

    def __init__(self, path: str, lock_timeout: Optional[float] = None) -> None:
        self.path = os.path.abspath(os.path.expanduser(path))
        self.lock_timeout = lock_timeout  # per-resource locks: None waits forever (P42)
        self.directory = os.path.dirname(self.path)
        self.lock_dir = self.path + ".locks"

    def _ensure_dirs(self) -> None:
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            os.makedirs(self.lock_dir, mode=0o700, exist_ok=True)
        except OSError as exc:
            cause = f"cannot create the state directory {self.directory} ({exc.strerror})"
            raise StateWriteError(
                cause + "; set state_path (or NUBES_STATE_PATH) to a writable location", cause=cause
            ) from None

    @contextlib.contextmanager
    def _flock(self, path: str, mode: int) -> Iterator[None]:
        self._ensure_dirs()
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def lock(self, key: Key) -> Any:
        digest = hashlib.sha256(_encode(key).encode("utf-8")).hexdigest()[:40]
        self._ensure_dirs()
        # P42: bounded wait, the holder named in the error (lease_file.py)
        return FileLease(os.path.join(self.lock_dir, digest + ".lock"), self.lock_timeout, "/".join(key))

    def _read(self) -> Dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return {"version": FORMAT_VERSION}
            raise NubesError(f"cannot read the state file {self.path}: {exc.strerror}") from None
        except ValueError:
            raise NubesError(
                f"the state file {self.path} is not valid JSON; restore it from a backup or move it away (the cloud "
                "instances are not affected) and re-run"
            ) from None
        return check_document(data, f"the state file {self.path}", FIX)  # issue 24: validated on every read

    def _write(self, data: Dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".tmp", dir=self.directory)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True, ensure_ascii=False)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):
            dir_fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def get(self, table: str, key: Key) -> Optional[Dict[str, Any]]:
        with self._flock(self.path + ".lock", fcntl.LOCK_SH):
            record = self._read().get(table, {}).get(_encode(key))
        return None if record is None else dict(record)

    def put(self, table: str, key: Key, record: Dict[str, Any]) -> None:
        with self._flock(self.path + ".lock", fcntl.LOCK_EX):
            data = self._read()
            data["version"] = FORMAT_VERSION
            data.setdefault(table, {})[_encode(key)] = record
            self._write(data)

    def delete(self, table: str, key: Key) -> bool:
        with self._flock(self.path + ".lock", fcntl.LOCK_EX):
            data = self._read()
            removed = data.get(table, {}).pop(_encode(key), None)
            if removed is not None:
                self._write(data)
        return removed is not None

    def items(self, table: str) -> List[Tuple[Key, Dict[str, Any]]]:
        with self._flock(self.path + ".lock", fcntl.LOCK_SH):
            entries = self._read().get(table, {})
        return [(tuple(json.loads(k)), dict(v)) for k, v in entries.items()]
