# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service description of a generated module (its `SERVICE` literal) as typed, frozen data.

`load_service(SERVICE)` checks the literal once (docs/dev/contracts.md "Unified service spec") and returns a
:class:`ServiceSpec`; the core reads attributes, never dictionary keys. A malformed literal is a bug of the
generator and fails before any API call. No service-specific logic (P2): everything here is data (P31).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError

TYPES = ("string", "integer", "boolean", "array", "map-fixed", "json")
DEFAULT_TIMEOUT = 1800


class SpecError(NubesError):
    """The SERVICE literal does not match the contract (a generator bug, not a user error)."""


@dataclass(frozen=True)
class ParamSpec:
    """One API param: its code, the option that carries it, its type, and what the API says about it."""

    code: str
    option: str
    type: str
    required: bool = False
    default: Optional[str] = None
    choices: Tuple[str, ...] = ()
    secret: bool = False
    ref_service_id: Optional[int] = None
    sub_params: Tuple[ParamSpec, ...] = ()
    operations: Tuple[Tuple[str, int], ...] = ()  # (operation, svcOperationCfsParamId)
    immutable: bool = False  # not in modify: a key (create-only) param (P21/P23)
    placeholder: Optional[str] = None  # the API's default when it is a portal placeholder: never applied (P35)

    def in_operation(self, name: str) -> bool:
        """Whether the operation `name` takes this param (sub-params belong to their parent's operations)."""
        return not self.operations or any(op == name for op, _id in self.operations)


@dataclass(frozen=True)
class OperationSpec:
    name: str
    kind: str  # instance | subresource | action | excluded
    svc_operation_id: Optional[int]  # the spec's id: a fallback only (issue 14; see context.OperationIds)
    params: Tuple[ParamSpec, ...] = ()


@dataclass(frozen=True)
class SubresourceSpec:
    """P13: a sub-resource of the parent instance; identity {parent instance uid, key}."""

    name: str
    key: str  # the option of the key param
    key_code: str  # the API code of the key param (uniqueScope: parent)
    create: str
    delete: str
    modify: Optional[str]
    params: Tuple[ParamSpec, ...]


@dataclass(frozen=True)
class Lifecycle:
    suspendable: bool
    deletable: bool
    redeploy: bool
    adopt_existing_on_create: bool  # P19 default
    suspend_on_destroy: bool  # P19 default
    timeouts: Tuple[Tuple[str, int], ...]

    def timeout(self, operation: str) -> int:
        """P8: the operation's timeout, else its verb's (`create_user` -> `create`), else 1800 s."""
        table = dict(self.timeouts)
        verb = operation.split("_", 1)[0]
        return int(table.get(operation) or table.get(verb) or DEFAULT_TIMEOUT)


@dataclass(frozen=True)
class OutputSpec:
    code: str  # may be a dotted path into instance.state.out
    type: str
    secret: bool


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    service_id: int
    lifecycle: Lifecycle
    outputs: Tuple[OutputSpec, ...]
    operations: Tuple[OperationSpec, ...]
    params: Tuple[ParamSpec, ...]
    subresources: Tuple[SubresourceSpec, ...]

    def operation(self, name: str) -> Optional[OperationSpec]:
        for item in self.operations:
            if item.name == name:
                return item
        return None

    def subresource(self, name: str) -> SubresourceSpec:
        for item in self.subresources:
            if item.name == name:
                return item
        raise SpecError(f"service {self.name} has no sub-resource {name!r}")


_CACHE: Dict[int, Tuple[Mapping[str, Any], ServiceSpec]] = {}


def load_service(data: Any) -> ServiceSpec:
    """The typed spec of a SERVICE literal (cached per literal: a module loads its own once)."""
    if isinstance(data, ServiceSpec):
        return data
    cached = _CACHE.get(id(data))
    if cached is not None and cached[0] is data:
        return cached[1]
    spec = _service(_mapping(data, "SERVICE"))
    _CACHE[id(data)] = (data, spec)  # the literal is kept, so its id cannot be reused while cached
    return spec


def _service(data: Mapping[str, Any]) -> ServiceSpec:
    life = _mapping(data.get("lifecycle", {}), "lifecycle")
    timeouts = _mapping(life.get("timeouts", {}), "lifecycle.timeouts")
    lifecycle = Lifecycle(
        suspendable=_bool(life, "suspendable", False),
        deletable=_bool(life, "deletable", True),
        redeploy=_bool(life, "redeploy", False),
        adopt_existing_on_create=_bool(life, "adopt_existing_on_create", False),
        suspend_on_destroy=_bool(life, "suspend_on_destroy", True),
        timeouts=tuple((str(k), _int(v, f"lifecycle.timeouts.{k}")) for k, v in timeouts.items()),
    )
    outputs = tuple(
        OutputSpec(_text(o, "code"), str(o.get("type", "string")), _bool(o, "secret", False))
        for o in (_mapping(item, "outputs[]") for item in _sequence(data.get("outputs", ()), "outputs"))
    )
    operations = tuple(_operation(_mapping(o, "operations[]")) for o in _sequence(data.get("operations", ()), "ops"))
    subs = tuple(_subresource(_mapping(s, "subresources[]")) for s in _sequence(data.get("subresources", ()), "subs"))
    return ServiceSpec(
        name=_text(data, "name"),
        service_id=_int(data.get("service_id"), "service_id"),
        lifecycle=lifecycle,
        outputs=outputs,
        operations=operations,
        params=_params(data.get("params", ()), "params"),
        subresources=subs,
    )


def _operation(data: Mapping[str, Any]) -> OperationSpec:
    op_id = data.get("svc_operation_id")
    return OperationSpec(
        name=_text(data, "name"),
        kind=str(data.get("kind", "instance")),
        svc_operation_id=None if op_id is None else _int(op_id, "svc_operation_id"),
        params=_params(data.get("params", ()), "operations[].params"),
    )


def _subresource(data: Mapping[str, Any]) -> SubresourceSpec:
    name = _text(data, "name")
    ops = _mapping(data.get("operations", {}), f"subresources[{name}].operations")
    key = _text(data, "key")
    return SubresourceSpec(
        name=name,
        key=key,
        key_code=str(data.get("key_code") or key),
        create=str(ops.get("create") or f"create_{name}"),
        delete=str(ops.get("delete") or f"delete_{name}"),
        modify=str(ops["modify"]) if ops.get("modify") else None,
        params=_params(data.get("params", ()), f"subresources[{name}].params"),
    )


def _params(items: Any, where: str) -> Tuple[ParamSpec, ...]:
    return tuple(load_param(_mapping(item, where + "[]")) for item in _sequence(items, where))


def load_param(data: Mapping[str, Any]) -> ParamSpec:
    """One param of the literal (`params[]`, `sub_params[]`) as a :class:`ParamSpec`."""
    code = _text(data, "code")
    kind = str(data.get("type", "string"))
    if kind not in TYPES:
        raise SpecError(f"param {code}: type {kind!r} is not one of {', '.join(TYPES)}")
    default = data.get("default")
    ref = data.get("ref_service_id")
    ops = _mapping(data.get("operations") or {}, f"param {code}.operations")
    return ParamSpec(
        code=code,
        option=str(data.get("option") or code),
        type=kind,
        required=_bool(data, "required", False),
        default=None if default is None else str(default),
        choices=tuple(str(c) for c in _sequence(data.get("choices") or (), f"param {code}.choices")),
        secret=_bool(data, "secret", False),
        ref_service_id=None if ref is None else _int(ref, f"param {code}.ref_service_id"),
        sub_params=_params(data.get("sub_params") or (), f"param {code}.sub_params"),
        operations=tuple((str(op), _int(pid, f"param {code}.operations.{op}")) for op, pid in ops.items()),
        immutable=_bool(data, "immutable", False),
        placeholder=None if data.get("placeholder") is None else str(data["placeholder"]),
    )


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(f"SERVICE {where} must be a mapping, got {type(value).__name__}")
    return value


def _sequence(value: Any, where: str) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise SpecError(f"SERVICE {where} must be a list, got {type(value).__name__}")
    return value


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise SpecError(f"SERVICE field {key!r} must be a non-empty string, got {value!r}")
    return value


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"SERVICE field {key!r} must be true or false, got {value!r}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(f"SERVICE field {where} must be an integer, got {value!r}")
    return value
