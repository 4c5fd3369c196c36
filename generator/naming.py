"""Option and module names: API codes (camelCase, UPPER_CASE) -> proper snake_case."""

from __future__ import annotations

import re

from generator.contract import COMMON_OPTIONS, KIND_OPTION_NAMES

# The names come from the option contract (plugins/module_utils/nubes/common_options.py, issue 26): the common
# options every module gets from the core, and the lifecycle options the generator adds per module kind
# (contracts.md); service params must not shadow them.
INSTANCE_OPTIONS: tuple[str, ...] = KIND_OPTION_NAMES["instance"]
SUBRESOURCE_OPTIONS: tuple[str, ...] = KIND_OPTION_NAMES["subresource"]
COLLISION_SUFFIX = "_param"

_ACRONYM_BOUNDARY = re.compile(r"([A-Z]+)([A-Z][a-z])")
_LOWER_UPPER_BOUNDARY = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^0-9a-zA-Z]+")


def snake_case(code: str) -> str:
    """``resourceCPU`` -> ``resource_cpu``, ``allowNoSSL`` -> ``allow_no_ssl``, ``s3Uid`` -> ``s3_uid``,
    ``ext_BACKUP_SCHEDULE`` -> ``ext_backup_schedule``, ``vc-vm.v3`` -> ``vc_vm_v3``."""
    text = _ACRONYM_BOUNDARY.sub(r"\1_\2", code)
    text = _LOWER_UPPER_BOUNDARY.sub(r"\1_\2", text)
    text = _NON_WORD.sub("_", text).strip("_").lower()
    text = re.sub(r"_+", "_", text)
    if not text:
        raise ValueError(f"cannot make an option name from {code!r}")
    if text[0].isdigit():
        text = "p_" + text
    return text


def option_name(code: str, reserved: set[str] | frozenset[str], taken: set[str]) -> str:
    """The option of an API param: snake_case, renamed with ``_param`` on a collision with a reserved
    (common/lifecycle) option or an option already taken by another param of the same module."""
    name = snake_case(code)
    while name in reserved or name in taken or name.startswith("_ansible"):
        name += COLLISION_SUFFIX
    return name


def instance_reserved() -> frozenset[str]:
    """Option names service params of an instance (and info) module may not use."""
    return frozenset(COMMON_OPTIONS + INSTANCE_OPTIONS)


def subresource_reserved() -> frozenset[str]:
    """Option names params of a sub-resource module may not use."""
    return frozenset(COMMON_OPTIONS + SUBRESOURCE_OPTIONS)
