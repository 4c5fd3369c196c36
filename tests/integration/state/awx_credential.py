"""What AWX injects into a job for a credential of the "Nubes API" type (docs/awx/nubes_credential_type.yml).

As AWX's `CredentialType.inject_credential` does: the fields the credential leaves blank are missing from the
template namespace (so they render as ""), every `file` injector becomes a file of mode 0600 whose path the
templates read as `tower.filename.<label>`, and every `env` injector is rendered in a sandboxed Jinja2
environment.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2.sandbox
import yaml

REPO = Path(__file__).resolve().parents[3]
CREDENTIAL_TYPE = REPO / "docs" / "awx" / "nubes_credential_type.yml"


def definition() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CREDENTIAL_TYPE.read_text(encoding="utf-8"))
    return data


def inject(inputs: dict[str, str], private_dir: Path) -> dict[str, str]:
    """The environment variables a job gets from a credential with these `inputs` (its files go to private_dir)."""
    injectors = definition()["injectors"]
    sandbox = jinja2.sandbox.ImmutableSandboxedEnvironment()
    namespace: dict[str, Any] = {key: value for key, value in inputs.items() if value}
    tower = SimpleNamespace(filename=SimpleNamespace())
    namespace["tower"] = tower
    private_dir.mkdir(parents=True, exist_ok=True)
    for label, template in (injectors.get("file") or {}).items():
        handle, path = tempfile.mkstemp(dir=private_dir)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(sandbox.from_string(template).render(**namespace))
        os.chmod(path, 0o600)
        if "." in label:
            setattr(tower.filename, label.split(".", 1)[1], path)
        else:
            tower.filename = path
    return {name: sandbox.from_string(template).render(**namespace) for name, template in injectors["env"].items()}
