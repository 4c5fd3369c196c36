"""P2: the core is universal: no service-specific logic in plugins/module_utils/nubes."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CORE = REPO / "plugins" / "module_utils" / "nubes"
CATALOGUE = REPO / "tests" / "emulator" / "catalogue"


def test_core_names_no_service() -> None:
    """P2: no service's short name appears in the core's code; what differs per service is data (SERVICE,
    generated, P31). S3 (service 12) is the seed's own universal rule for `s3.*uid` keys (P37)."""
    names = {json.loads(p.read_text(encoding="utf-8"))["svcShort"] for p in CATALOGUE.glob("*.json")}
    names.discard("s3")
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b", re.IGNORECASE)
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(CORE.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
