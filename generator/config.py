"""Inputs from ``config/``: the service inclusion list (P7), the operation timeouts (P8) and the supported
ansible-core versions (``requires_ansible``)."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import GeneratorError

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class ServiceEntry:
    """One line of ``config/services_list.txt``: ``<service_id> <name> [<alias> ...] [title="..."] [test=true]``.

    ``title`` is the service's English name for the docs (needed when the catalogue's name is not English);
    ``test`` marks the platform's own test service, whose docs then say so.
    """

    service_id: int
    name: str
    aliases: tuple[str, ...] = ()
    title: str | None = None
    test: bool = False


_ATTRIBUTES = ("title", "test")
_BOOLEANS = {"true": True, "yes": True, "false": False, "no": False}


def parse_services_list(text: str, source: str = "services_list.txt") -> list[ServiceEntry]:
    """P7: service_id first, then the name (the module name), optional aliases and ``key=value`` attributes
    (``title="English name"``, ``test=true``); '#' starts a comment."""
    entries: list[ServiceEntry] = []
    seen_ids: set[int] = set()
    seen_names: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{source}:{number}"
        try:
            fields = shlex.split(raw, comments=True)
        except ValueError as exc:
            raise GeneratorError(f"{where}: {exc} in {raw.strip()!r}") from None
        if not fields:
            continue
        if len(fields) < 2 or not fields[0].isdigit():
            raise GeneratorError(f"{where}: expected '<service_id> <name> [<alias> ...]', got {raw.strip()!r}")
        service_id, name = int(fields[0]), fields[1]
        if not _NAME_RE.match(name):
            raise GeneratorError(f"{where}: name {name!r} must be snake_case (a-z, 0-9, _), it becomes a module name")
        if service_id in seen_ids:
            raise GeneratorError(f"{where}: service_id {service_id} is listed twice")
        if name in seen_names:
            raise GeneratorError(f"{where}: name {name!r} is listed twice")
        aliases = tuple(f for f in fields[2:] if "=" not in f)
        attributes = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
        unknown = sorted(set(attributes) - set(_ATTRIBUTES))
        if unknown:
            raise GeneratorError(f"{where}: unknown attribute {unknown[0]!r} (known: {', '.join(_ATTRIBUTES)})")
        title = attributes.get("title")
        if title is not None and not title.strip():
            raise GeneratorError(f"{where}: title must not be empty")
        test = _BOOLEANS.get(attributes.get("test", "false").lower())
        if test is None:
            raise GeneratorError(f"{where}: test must be true or false, got {attributes['test']!r}")
        seen_ids.add(service_id)
        seen_names.add(name)
        entries.append(ServiceEntry(service_id, name, aliases, title.strip() if title else None, test))
    if not entries:
        raise GeneratorError(f"{source}: no services listed")
    return entries


def load_services_list(path: Path) -> list[ServiceEntry]:
    """Read and parse ``config/services_list.txt``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GeneratorError(f"cannot read the service list {path}: {exc.strerror}") from exc
    return parse_services_list(text, str(path))


@dataclass(frozen=True)
class Timeouts:
    """P8: operation timeouts in seconds; per-service values override the defaults."""

    defaults: dict[str, int]
    services: dict[str, dict[str, int]]

    def for_operation(self, service: str, operation: str, subresource: bool = False) -> int:
        """The timeout of one operation; sub-resource operations fall back to the ``subresource`` default."""
        own = self.services.get(service, {})
        if operation in own:
            return own[operation]
        if operation in self.defaults:
            return self.defaults[operation]
        if subresource and "subresource" in own:
            return own["subresource"]
        if subresource and "subresource" in self.defaults:
            return self.defaults["subresource"]
        raise GeneratorError(
            f"operation_timeouts.json has no timeout for operation {operation!r} of service {service!r}: "
            f"add it under 'defaults' or 'services.{service}'"
        )


def _int_map(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v > 0 for k, v in value.items()
    ):
        raise GeneratorError(f"{where} must map operation names to positive integers (seconds)")
    return dict(value)


def parse_timeouts(data: Any, source: str = "operation_timeouts.json") -> Timeouts:
    """Validate the timeouts document: ``{"defaults": {op: s}, "services": {name: {op: s}}}``."""
    if not isinstance(data, dict):
        raise GeneratorError(f"{source}: expected a JSON object")
    defaults = _int_map(data.get("defaults", {}), f"{source}: 'defaults'")
    services_raw = data.get("services", {})
    if not isinstance(services_raw, dict):
        raise GeneratorError(f"{source}: 'services' must be an object")
    services = {name: _int_map(ops, f"{source}: 'services.{name}'") for name, ops in services_raw.items()}
    return Timeouts(defaults, services)


def load_timeouts(path: Path) -> Timeouts:
    """Read and parse ``config/operation_timeouts.json``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GeneratorError(f"cannot read the timeouts file {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise GeneratorError(f"{path}: invalid JSON: {exc}") from exc
    return parse_timeouts(data, str(path))


def parse_core_versions(text: str, source: str = "ansible_core_versions.txt") -> list[str]:
    """The supported ansible-core versions (``<major.minor> <python>`` per line), oldest first."""
    versions: list[tuple[int, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        match = re.fullmatch(r"2\.(\d+)", fields[0])
        if match is None or len(fields) != 2:
            expected = "expected '<ansible-core major.minor> <python version>'"
            raise GeneratorError(f"{source}:{number}: {expected}, got {raw.strip()!r}")
        versions.append((2, int(match.group(1))))
    if not versions:
        raise GeneratorError(f"{source}: no ansible-core versions listed")
    if versions != sorted(set(versions)):
        raise GeneratorError(f"{source}: list each version once, oldest first")
    return [f"{major}.{minor}" for major, minor in versions]


def load_requires_ansible(path: Path) -> str:
    """``requires_ansible`` for meta/runtime.yml: the oldest supported ansible-core, e.g. ``>=2.16.0``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GeneratorError(f"cannot read the ansible-core versions file {path}: {exc.strerror}") from exc
    return f">={parse_core_versions(text, str(path))[0]}.0"
