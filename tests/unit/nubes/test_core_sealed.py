"""Issue 24: secret outputs sealed on their way from the module to the controller (module_utils/nubes/sealed.py):
the group is RFC 3526's, both sides derive the same keys, a value altered or sealed for another task never opens,
and the module seals only when the action plugin asked for it."""

from __future__ import annotations

import json
import random
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import sealed
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import Redactor
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from tests.unit.nubes.conftest import RunFactory
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"


def pi_times_power_of_two(bits: int) -> int:
    """floor(2**bits * pi), by Machin's formula in fixed point (20 guard bits)."""
    scale = 1 << (bits + 20)

    def arctan_inverse(x: int) -> int:
        total, term, n, sign = 0, scale // x, 1, 1
        while term:
            total += sign * (term // n)
            term //= x * x
            n += 2
            sign = -sign
        return total

    return (16 * arctan_inverse(5) - 4 * arctan_inverse(239)) >> 20


def probably_prime(n: int, rounds: int = 8) -> bool:
    """Miller-Rabin with fixed random bases (seeded: the test is deterministic)."""
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    bases = random.Random(24)
    for _round in range(rounds):
        x = pow(bases.randrange(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _square in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def test_group_is_rfc3526_group_14() -> None:
    """Issue 24: the prime is RFC 3526's 2048-bit MODP prime, 2^2048 - 2^1984 - 1 + 2^64 * ([2^1918 pi] + 124476),
    a safe prime (p and (p-1)/2 prime), with generator 2."""
    expected = 2**2048 - 2**1984 - 1 + 2**64 * (pi_times_power_of_two(1918) + 124476)
    assert expected == sealed.PRIME and sealed.GENERATOR == 2
    assert probably_prime(sealed.PRIME) and probably_prime((sealed.PRIME - 1) // 2)


def controller_pair() -> tuple[int, str]:
    private = sealed.new_private()
    return private, sealed.public_text(private)


def test_round_trip_of_every_json_value() -> None:
    """Issue 24: what the module seals for the controller's public value, the controller opens, nested anywhere in the
    result; the sealed text holds neither the value nor its JSON."""
    private, public = controller_pair()
    sealer = sealed.Sealer.from_environment({sealed.ENV: public})
    assert sealer is not None and not sealer.used
    values: Dict[str, Any] = {"secretKey": "S3-secret-key-0123", "nested": {"a": [1, "x"]}, "unicode": "пароль"}
    result = {"outputs": {k: sealer.seal(v) for k, v in values.items()}, "list": [sealer.seal("in-a-list")], "n": 1}
    text = json.dumps(result)
    assert sealer.used and "S3-secret-key-0123" not in text and "пароль" not in text and "in-a-list" not in text
    assert all(v.startswith(sealed.PREFIX) for v in result["outputs"].values())
    opened = sealed.open_all(result, private, public, sealer.public)
    assert opened == {"outputs": values, "list": ["in-a-list"], "n": 1}


def test_altered_or_foreign_sealed_values_never_open() -> None:
    """Issue 24: a flipped bit, a truncated value, or a value sealed for another task's key fails to open."""
    private, public = controller_pair()
    sealer = sealed.Sealer.from_environment({sealed.ENV: public})
    assert sealer is not None
    token = sealer.seal("Admin-pass-42")
    body = bytearray(token[len(sealed.PREFIX) :], "ascii")
    body[30] = ord("A") if body[30] != ord("A") else ord("B")
    other_private, other_public = controller_pair()
    for bad, key in (
        (sealed.PREFIX + body.decode(), (private, public)),
        (token[:40], (private, public)),
        (sealed.PREFIX + "not base64!", (private, public)),
        (token, (other_private, other_public)),
    ):
        with pytest.raises(sealed.SealError):
            sealed.open_all({"v": bad}, key[0], key[1], sealer.public)


@pytest.mark.parametrize("public", ["1", format(sealed.PRIME - 1, "x"), format(sealed.PRIME, "x"), "0", "xyz", "-5"])
def test_degenerate_or_malformed_public_values_are_refused(public: str) -> None:
    """Issue 24: 0, 1, p-1, p and non-hex fix or break the shared secret: the module refuses them with a clear error,
    before any API call."""
    with pytest.raises(InputError, match=sealed.ENV):
        sealed.Sealer.from_environment({sealed.ENV: public})


def test_redactor_leaves_sealed_values_whole() -> None:
    """Issue 24: a short registered secret that happens to occur inside a sealed value's base64 does not corrupt it."""
    public = controller_pair()[1]
    sealer = sealed.Sealer.from_environment({sealed.ENV: public})
    assert sealer is not None
    token = sealer.seal("value")
    inside = token[len(sealed.PREFIX) + 5 : len(sealed.PREFIX) + 9]
    assert Redactor([inside]).value({"o": token}) == {"o": token}
    assert Redactor([inside]).value({"o": "x" + inside}) == {"o": "x********"}


def test_runner_seals_secret_outputs_only_when_asked(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: with the action plugin's public value in the environment, return_secrets returns the secret outputs
    sealed (and the module's public value in `nubes_sealed_with`), other outputs in clear; without it (the module run
    directly) nothing is sealed and the result has no such key."""
    task = {"resource_name": "files", "display_name": "files", "resource_realm": REALM}
    uid = run(services["s3"], **task)["instance_uid"]
    secret_key = "S3-generated-secret-key-1"
    deck.instances[uid]["state"]["out"] = {"accessKey": "AK1", "secretKey": secret_key}
    plain = run(services["s3"], no_log=True, return_secrets=True, **task)
    assert plain["outputs"]["secretKey"] == secret_key and sealed.RESULT_KEY not in plain

    private, public = controller_pair()
    monkeypatch.setenv(sealed.ENV, public)
    result = run(services["s3"], no_log=True, return_secrets=True, **task)
    assert result["outputs"]["secretKey"].startswith(sealed.PREFIX) and secret_key not in json.dumps(result)
    assert result["outputs"]["accessKey"] == "AK1"
    opened = sealed.open_all(result, private, public, result.pop(sealed.RESULT_KEY))
    assert opened["outputs"]["secretKey"] == secret_key == opened["instance"]["outputs"]["secretKey"]
    assert sealed.RESULT_KEY not in run(services["s3"], **task)  # no return_secrets: nothing sealed
