# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The services the inventory knows, read from the generated data descriptions (`module_utils/services/*.py`).

Nothing here names a service: the list, the ids, the short names, which outputs are secret and the params come
from the same SERVICE literals the generated modules use (P2, P3). A service added to the generator's list
shows up in the inventory without a change here.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import lookup_dotted
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import load_service

# Outputs whose last dotted segment is one of these hold an address (`ip`, `externalConnect.master.fqdn`,
# `externalIp`): the default source of `ansible_host`. A rule on output codes, not a list of services.
ADDRESS_SEGMENTS = ("fqdn", "ip", "externalip", "hostname")


class ServiceEntry:
    """One service of the catalogue: identity, public outputs, params converter, default address outputs."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        typed = load_service(spec)  # the core's typed spec, validated once
        self.spec = typed
        self.name = typed.name
        self.service_id = typed.service_id
        self.short_name = str(spec.get("service_short_name") or self.name)
        self.public_outputs: Tuple[str, ...] = tuple(o.code for o in typed.outputs if not o.secret)
        self.converter = ParamConverter(typed.params)

    @property
    def address_outputs(self) -> Tuple[str, ...]:
        """Public outputs that hold an address, in catalogue order (the default `ansible_host` candidates)."""
        return tuple(c for c in self.public_outputs if c.rsplit(".", 1)[-1].lower() in ADDRESS_SEGMENTS)

    def params_view(self, raw: Mapping[str, Optional[str]]) -> Dict[str, Any]:
        """`state.params` by option name, typed as the modules type them; secret params left out."""
        return self.converter.options_view(raw)

    def outputs_view(self, out: Mapping[str, Any]) -> Dict[str, Any]:
        """`state.out` by output code (dotted codes as flat keys, as `<service>_info` returns them); only the
        catalogue's public outputs, so a secret or an output the catalogue does not know never leaves."""
        result: Dict[str, Any] = {}
        for code in self.public_outputs:
            value = lookup_dotted(out, code)
            if value is not None:
                result[code] = value
        return result


class Catalogue:
    """All services of the collection, by id, with lookup by module name, API short name or id."""

    def __init__(self, entries: Iterable[ServiceEntry]) -> None:
        self.by_id: Dict[int, ServiceEntry] = {e.service_id: e for e in entries}
        self._by_key: Dict[str, ServiceEntry] = {}
        for entry in self.by_id.values():
            for key in (entry.name, entry.short_name, str(entry.service_id)):
                self._by_key.setdefault(key.lower(), entry)

    def lookup(self, key: Any) -> Optional[ServiceEntry]:
        return self._by_key.get(str(key).strip().lower())

    def select(self, wanted: Iterable[Any]) -> List[ServiceEntry]:
        """The services named (module name, API short name or id), in the given order; every service when none
        is named. An unknown name is an InputError that lists the known ones (raised before any API call)."""
        wanted = list(wanted or [])
        if not wanted:
            return sorted(self.by_id.values(), key=lambda e: e.service_id)
        chosen: List[ServiceEntry] = []
        unknown: List[str] = []
        for key in wanted:
            entry = self.lookup(key)
            if entry is None:
                unknown.append(str(key))
            elif entry not in chosen:
                chosen.append(entry)
        if unknown:
            known = ", ".join(f"{e.name} ({e.service_id})" for e in sorted(self.by_id.values(), key=lambda e: e.name))
            raise InputError(f"services: unknown service {', '.join(map(repr, unknown))}; known services: {known}")
        return chosen


@functools.lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    """Index every generated SERVICE literal (`module_utils/services/all_services.py`, once per process)."""
    from ansible_collections.nubes.cloud.plugins.module_utils.services.all_services import SERVICES

    return Catalogue(ServiceEntry(spec) for spec in SERVICES if isinstance(spec, Mapping))
