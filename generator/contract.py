"""The collection's option contract (``plugins/module_utils/nubes/common_options.py``), as the generator uses it.

The generator runs outside Ansible's collection loader (``python -m generator``), so it loads the contract from
its file in this checkout: the options it emits into a generated module's ARGUMENT_SPEC and the names service
params must not shadow are the ones the modules validate with (issue 26: one contract, no copy here).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

CONTRACT_PATH = Path(__file__).resolve().parents[1] / "plugins" / "module_utils" / "nubes" / "common_options.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nubes_cloud_option_contract", CONTRACT_PATH)
    if spec is None or spec.loader is None:  # pragma: no cover - the file is part of the checkout
        raise ImportError(f"cannot load the option contract from {CONTRACT_PATH}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CONTRACT = _load()

COMMON_OPTIONS: tuple[str, ...] = tuple(_CONTRACT.COMMON_OPTIONS)
KIND_OPTION_NAMES: dict[str, tuple[str, ...]] = dict(_CONTRACT.KIND_OPTION_NAMES)


def lifecycle_options(spec: dict[str, Any], kind: str, sub: str | None = None) -> dict[str, dict[str, Any]]:
    """The kind's lifecycle options of a module of ``spec``, as they head its ARGUMENT_SPEC (the contract's own)."""
    options: dict[str, dict[str, Any]] = _CONTRACT.lifecycle_options(spec, kind, sub)
    return options
