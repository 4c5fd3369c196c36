"""Values of `instance.state.out`, rendered from the catalogue's `emulatorValue` templates.

Template forms: `secret:N[:upper]` (a generated secret of N characters), `ip:A.B.0.0` (an address in that
/16), `json:<text>` (a JSON value), otherwise text with `{placeholders}`: uid, uid8, svc, realm, name,
any param code of the instance, or `ref->code` (a param of the instance the `ref` param points at).
"""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable
from typing import Any

PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_>\-]+)\}")


def render(template: str, values: dict[str, Any], resolve_ref: Callable[[str, str], Any], rng: random.Random) -> Any:
    if template.startswith("secret:"):
        parts = template.split(":")
        length = int(parts[1])
        alphabet = (
            string.ascii_uppercase + string.digits if "upper" in parts[2:] else string.ascii_letters + string.digits
        )
        return "".join(rng.choice(alphabet) for _index in range(length))
    if template.startswith("ip:"):
        a, b = template[3:].split(".")[:2]
        return f"{a}.{b}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    if template.startswith("json:"):
        return json.loads(template[5:])

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        if "->" in key:
            ref, code = key.split("->", 1)
            found = resolve_ref(ref, code)
            return "" if found is None else str(found)
        found = values.get(key)
        return "" if found is None else str(found)

    return PLACEHOLDER.sub(sub, template)


def set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        nxt = target.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            target[part] = nxt
        target = nxt
    target[parts[-1]] = value


def build_outputs(
    outputs: list[dict[str, Any]],
    values: dict[str, Any],
    resolve_ref: Callable[[str, str], Any],
    rng: random.Random,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in outputs:
        set_dotted(out, spec["code"], render(spec.get("emulatorValue", ""), values, resolve_ref, rng))
    return out
