"""What a finished operation does to its instance (state, status, sub-resources, outputs)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from tests.emulator import assumptions as A
from tests.emulator.model import Instance, Operation
from tests.emulator.outputs import build_outputs
from tests.emulator.validation import typed_value

if TYPE_CHECKING:
    from tests.emulator.engine import Emulator

Json = dict[str, Any]


def apply_effects(emu: Emulator, op: Operation) -> None:
    """Apply a finished operation to its instance (once, in finish order; see Emulator.settle)."""
    inst = emu.find_instance(op.instance_uid)
    if inst is None or op.followup_of is not None:
        return
    if not op.successful:
        if op.operation == "create":
            inst.status = A.STATUS_FAILED
        return
    name = op.operation
    if name == "create":
        inst.state = initial_state(emu, op, inst)
        inst.status = A.STATUS_RUNNING
    elif name == "modify" and inst.state is not None:
        inst.state.setdefault("params", {}).update(row_params(emu, op))
    elif name == "suspend":
        inst.status = A.STATUS_SUSPENDED
    elif name == "resume":
        inst.status = A.STATUS_RUNNING
    elif name == "delete":
        inst.is_deleted = True
        inst.status = A.STATUS_DELETED
    elif name == "redeploy" and inst.state is not None:
        revision = row_params(emu, op).get("gitRevision") or A.REDEPLOY_DEFAULT_REVISION
        inst.state.setdefault("params", {})["gitRevision"] = revision
    elif emu.catalogue.subresource_of(name) is not None and inst.state is not None:
        apply_subresource(emu, op, inst)
    op.result_state = copy.deepcopy(inst.state)


def row_params(emu: Emulator, op: Operation) -> Json:
    """Typed values of the rows set on `op`, secrets left out (emulator-contract.md: isSecret)."""
    result: Json = {}
    for row in op.rows.values():
        param = emu.catalogue.params[row.param_id]
        if param.get("isSecret") or row.value == "":
            continue
        result[param["svcOperationCfsParam"]] = typed_value(param, row.value)
    return result


def with_defaults(emu: Emulator, op: Operation) -> Json:
    values: Json = {}
    for param in emu.op_def(op)["cfsParams"]:
        default = param.get("defaultValue")
        if param.get("isSecret") or default is None:
            continue
        values[param["svcOperationCfsParam"]] = default
    values.update(row_params(emu, op))
    return values


def initial_state(emu: Emulator, op: Operation, inst: Instance) -> Json:
    params = with_defaults(emu, op)
    svc = emu.catalogue.services[inst.service_id]
    realm = params.get("resourceRealm") or (emu.catalogue.realms(inst.service_id) or [A.DEFAULT_REALM])[0]
    context = {
        **{k: v for k, v in params.items() if not isinstance(v, (dict, list))},
        "uid": inst.uid,
        "uid8": inst.uid[:8].lower(),
        "svc": svc["svcShort"],
        "realm": realm,
        "name": inst.display_name,
    }

    def resolve(ref_code: str, code: str) -> Any:
        target = emu.find_instance(str(params.get(ref_code, "")))
        return None if target is None or target.state is None else target.state.get("params", {}).get(code)

    out = build_outputs(svc.get("outputs", []), context, resolve, emu.secrets)
    state: Json = {
        "params": params,
        "out": out,
        "vault": {"userPath": f"cloud/{svc['svcShort']}/{inst.uid}", "url": out.get("vault", {}).get("url")},
    }
    subs = emu.catalogue.subresources(inst.service_id)
    if subs:
        state["subresources"] = {name: [] for name in subs}
    return state


def apply_subresource(emu: Emulator, op: Operation, inst: Instance) -> None:
    sub = emu.catalogue.subresource_of(op.operation)
    assert sub is not None and inst.state is not None
    verb, name = sub
    key = emu.catalogue.subresources(inst.service_id).get(name)
    entries: list[Json] = inst.state.setdefault("subresources", {}).setdefault(name, [])
    values = with_defaults(emu, op) if verb == "create" else row_params(emu, op)
    key_value = values.get(key) if key else None
    index = next((i for i, e in enumerate(entries) if key and e.get(key) == key_value), None)
    if verb == "create" and index is None:
        entries.append(values)
    elif verb == "modify" and index is not None:
        entries[index].update(values)
    elif verb == "delete" and index is not None:
        entries.pop(index)
