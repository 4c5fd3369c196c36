# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Digests of the secrets a record last applied (issue 24): they tell whether a task's secret is the applied one
(the API never returns secrets) without storing it, and cost a stolen state file 70-80 ms per guess.

Format (the PHC string format): `$pbkdf2-sha256$i=300000$<salt>$<hash>`, with PBKDF2-HMAC-SHA256 over
`<param code> NUL <value>` (UTF-8), a random 16-byte salt per digest, 32 bytes of hash, salt and hash in unpadded
base64. PBKDF2-HMAC-SHA256 is in `hashlib` on every Python the modules run on (3.9+, FIPS mode included; scrypt is
not available everywhere). 300,000 iterations cost 70-80 ms on the CI machine (2 shared cores, Python 3.9 and 3.13
alike; 200,000: 46-55 ms, 400,000: 92-107 ms; docs/reliability.md).

Records written before hold 32 hex digits: SHA-256 of `<record salt> NUL <code> NUL <value>`, one round. They are
still compared; the first task that gives a matching value writes the record again with the digest in the current
format, even when nothing else changes (`records.migrated`, `task.Task.migrate_digests`). A digest in an older
format, or with other parameters, is never written again.

A task compares each secret once: results are kept for the process (a module process is one task), keyed by the
digest, so the skeleton's second look at the same record costs nothing, and a digest that matched is kept as it is.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from typing import Dict, Tuple

ALGORITHM = "pbkdf2-sha256"
ITERATIONS = 300_000
SALT_BYTES = 16
HASH_BYTES = 32
CURRENT_PREFIX = f"${ALGORITHM}$i={ITERATIONS}$"
_PHC = re.compile(r"^\$pbkdf2-sha256\$i=([1-9][0-9]{0,8})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$")
_LEGACY = re.compile(r"^[0-9a-f]{32}$")
_MEMO_LIMIT = 256

_matched: Dict[Tuple[str, str, str], bool] = {}
kdf_calls = [0]  # KDF runs in this process (measured by the tests: a task makes one per secret it compares)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def _kdf(code: str, value: str, salt: bytes, iterations: int) -> bytes:
    kdf_calls[0] += 1
    return hashlib.pbkdf2_hmac("sha256", f"{code}\x00{value}".encode(), salt, iterations, HASH_BYTES)


def make(code: str, value: str) -> str:
    """A new digest of `value` (the secret param `code`), in the current format."""
    salt = os.urandom(SALT_BYTES)
    return f"{CURRENT_PREFIX}{_b64(salt)}${_b64(_kdf(code, value, salt, ITERATIONS))}"


def legacy(record_salt: str, code: str, value: str) -> str:
    """The one-round SHA-256 digest of earlier versions (read, never written)."""
    return hashlib.sha256(f"{record_salt}\x00{code}\x00{value}".encode()).hexdigest()[:32]


def is_current(stored: object) -> bool:
    """The digest is in the format and with the parameters this version writes."""
    return isinstance(stored, str) and stored.startswith(CURRENT_PREFIX) and bool(_PHC.match(stored))


def matches(stored: object, code: str, value: str, record_salt: str) -> bool:
    """Whether `stored` (current, other PBKDF2 parameters, or legacy) is a digest of `value`; anything else is not."""
    if not isinstance(stored, str):
        return False
    if _LEGACY.match(stored):
        return hmac.compare_digest(stored, legacy(record_salt, code, value))
    found = _PHC.match(stored)
    if not found:
        return False
    key = (stored, code, value)
    if key not in _matched:
        if len(_matched) >= _MEMO_LIMIT:
            _matched.clear()
        computed = _kdf(code, value, _unb64(found.group(2)), int(found.group(1)))
        _matched[key] = hmac.compare_digest(computed, _unb64(found.group(3)))
    return _matched[key]
