# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Secret outputs sealed on their way from the module to the controller (issue 24).

ansible-core prints a module's raw stdout under ANSIBLE_DEBUG (`_low_level_execute_command() done: ... stdout=`,
and the ssh connection's `stdout chunk` lines) before `no_log` applies. So the secret outputs a task asks for with
`return_secrets` never travel in clear: the collection's action plugin (`plugins/plugin_utils/sealed_action.py`)
makes an ephemeral Diffie-Hellman key pair for the task (RFC 3526 group 14: 2048-bit MODP, generator 2, 256-bit
private exponents) and gives the module the public half in the environment variable `NUBES_SEALED_RESULT_KEY`.
The module makes its own ephemeral pair; both sides derive the same 64 bytes from the shared secret with
HKDF-SHA256 (RFC 5869; info: this scheme's name and both public values), the first half encrypting, the second
authenticating. Each secret output is returned as `nubes-sealed:v1:<base64(nonce | ciphertext | tag)>`: the JSON of
the value XORed with an HMAC-SHA256 keystream (`HMAC(enc, nonce | counter)`), then `HMAC(mac, nonce | ciphertext)`
(encrypt-then-MAC). The module's public half goes back in the result's `nubes_sealed_with`. Only the action
plugin, which holds the private half in memory, opens them; what the debug lines show is public values and
ciphertext. Standard library only: the module side runs on the managed host's Python 3.9+.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from typing import Any, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError

ENV = "NUBES_SEALED_RESULT_KEY"  # the action plugin's public value, hex, for this one task
RESULT_KEY = "nubes_sealed_with"  # the module's public value, hex, in the module's result
PREFIX = "nubes-sealed:v1:"
# RFC 3526 section 3, the 2048-bit MODP group (group 14): 2^2048 - 2^1984 - 1 + 2^64 * ([2^1918 pi] + 124476).
PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
    "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
    "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
    "98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
    "9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)
GENERATOR = 2
PRIVATE_BITS = 256
SIZE = 256  # bytes of a group element
NONCE = 16
TAG = 32
INFO = b"nubes.cloud sealed result v1"


class SealError(ValueError):
    """A public value or a sealed text that is not what this scheme makes (malformed, or altered on the way)."""


def new_private() -> int:
    """An ephemeral private exponent (256 random bits, never 0 or 1)."""
    return secrets.randbits(PRIVATE_BITS) | 2


def public_text(private: int) -> str:
    """The public value of `private`, as the hex text that travels (environment variable, result key)."""
    return format(pow(GENERATOR, private, PRIME), "x")


def parse_public(text: Any) -> int:
    """A peer's public value; 1, p-1 and anything outside 2..p-2 are refused (they would fix the shared secret)."""
    try:
        value = int(str(text), 16)
    except ValueError:
        raise SealError("the public value is not hexadecimal") from None
    if not 2 <= value <= PRIME - 2:
        raise SealError("the public value is outside the group")
    return value


def _hkdf(secret: bytes, info: bytes, length: int) -> bytes:
    """RFC 5869 HKDF-SHA256 with an empty salt."""
    prk = hmac.new(b"\x00" * 32, secret, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


class Box:
    """The keys both sides derive for one task: seals and opens values."""

    def __init__(self, private: int, peer: int, controller: int, module: int) -> None:
        shared = pow(peer, private, PRIME).to_bytes(SIZE, "big")
        info = INFO + controller.to_bytes(SIZE, "big") + module.to_bytes(SIZE, "big")
        keys = _hkdf(shared, info, 64)
        self._enc, self._mac = keys[:32], keys[32:]

    def _xor(self, nonce: bytes, data: bytes) -> bytes:
        stream = b""
        counter = 0
        while len(stream) < len(data):
            stream += hmac.new(self._enc, nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest()
            counter += 1
        return bytes(a ^ b for a, b in zip(data, stream))

    def seal(self, value: Any) -> str:
        nonce = os.urandom(NONCE)
        body = self._xor(nonce, json.dumps(value).encode("utf-8"))
        tag = hmac.new(self._mac, nonce + body, hashlib.sha256).digest()
        return PREFIX + base64.b64encode(nonce + body + tag).decode("ascii")

    def open(self, text: str) -> Any:
        try:
            raw = base64.b64decode(text[len(PREFIX) :].encode("ascii"), validate=True)
        except ValueError:
            raise SealError("a sealed value is not base64") from None
        if len(raw) < NONCE + TAG:
            raise SealError("a sealed value is truncated")
        nonce, body, tag = raw[:NONCE], raw[NONCE:-TAG], raw[-TAG:]
        if not hmac.compare_digest(tag, hmac.new(self._mac, nonce + body, hashlib.sha256).digest()):
            raise SealError("a sealed value does not authenticate (altered, or sealed for another task)")
        return json.loads(self._xor(nonce, body).decode("utf-8"))


class Sealer:
    """The module's side: seals values for the controller whose public value came in `ENV`."""

    def __init__(self, controller_public: str) -> None:
        controller = parse_public(controller_public)
        private = new_private()
        self.public = public_text(private)
        self._box = Box(private, controller, controller, int(self.public, 16))
        self.used = False

    @classmethod
    def from_environment(cls, environ: Any) -> Optional[Sealer]:
        """The sealer of this task when the action plugin asked for sealed outputs, else None (a direct call)."""
        text = environ.get(ENV)
        if not text:
            return None
        try:
            return cls(text)
        except SealError as exc:
            raise InputError(
                f"{ENV} holds no valid public value ({exc}). The collection's action plugin sets it for each task "
                "that returns secret outputs: do not set it in the task's environment"
            ) from None

    def seal(self, value: Any) -> str:
        self.used = True
        return self._box.seal(value)


def open_all(data: Any, private: int, controller_public: str, module_public: str) -> Any:
    """The controller's side: `data` with every sealed text opened (nested dicts and lists)."""
    module = parse_public(module_public)
    return _open(data, Box(private, module, int(controller_public, 16), module))


def _open(data: Any, box: Box) -> Any:
    if isinstance(data, str) and data.startswith(PREFIX):
        return box.open(data)
    if isinstance(data, dict):
        return {key: _open(value, box) for key, value in data.items()}
    if isinstance(data, list):
        return [_open(value, box) for value in data]
    return data
