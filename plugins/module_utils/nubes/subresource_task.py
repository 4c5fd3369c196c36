# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A sub-resource module's task (P13, P17): identity = {parent instance uid, key}.

Sub-resources are created, modified and deleted by operations on the parent instance
(`create_<sub>`, `modify_<sub>`, `delete_<sub>`) and listed in `instance.state.subresources.<sub>`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import subresource_spec
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import TWO_CHOICES
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationResult
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import (
    ParamConverter,
    changed_codes,
    digest,
    equivalent,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import STATUS_PRESENT, new_salt


class SubresourceTask:
    """present/absent of one sub-resource of a parent instance."""

    def __init__(self, ctx: TaskContext, sub: str) -> None:
        self.ctx = ctx
        self.params = ctx.params
        self.sub = sub
        self.spec = subresource_spec(ctx.service, sub)
        self.converter = ParamConverter(self.spec.get("params") or [], resolver=ctx.resolve_name)
        self.key_option = str(self.spec["key"])
        self.key_code = str(self.spec.get("key_code") or self.spec["key"])
        self.key = str(self.params.get(self.key_option) or "")
        self.operations_run: List[str] = []
        self.last_operation: Optional[OperationResult] = None
        self.changed = False
        self.parent: Optional[Instance] = None
        self.current: Optional[Dict[str, Any]] = None
        self.reason = ""

    @property
    def module_name(self) -> str:
        return f"{self.ctx.module_name}_{self.sub}"

    def run(self) -> Dict[str, Any]:
        if not self.key:
            raise NubesError(f"{self.key_option} is required: it identifies the {self.sub} inside the parent instance")
        state = self.params.get("state") or "present"
        self.ctx.register_secrets({c: self.params.get(c) for c in self._secret_options()})
        desired = self.converter.desired(self.params) if state == "present" else {}  # validates before writes
        parent_uid = self._parent_uid()
        with self.ctx.store.parent_lock(parent_uid):
            record = self.ctx.store.get_sub(self.ctx.service_name, parent_uid, self.sub, self.key)
            self.parent = identity.find(self.ctx.api, parent_uid)
            if self.parent is not None and self.parent.busy:
                self.parent = self.ctx.executor.wait_idle(self.parent, self.ctx.timeout("modify"))
            if self.parent is None or not self.parent.live:
                if state == "absent":
                    if record is not None and not self.ctx.check_mode:
                        self.ctx.store.delete_sub(self.ctx.service_name, parent_uid, self.sub, self.key)
                    self.changed = record is not None
                    self.reason = "the parent instance is gone"
                    return self._result(parent_uid, {})
                raise NubesError(
                    f"the parent instance {parent_uid} does not exist or is deleted; create the parent first (or fix "
                    "parent_instance_uid / parent_resource_name)"
                )
            self.current = self._find_current()
            if state == "present":
                self._present(parent_uid, record, desired)
            else:
                self._absent(parent_uid, record)
        return self._result(parent_uid, desired)

    def _secret_options(self) -> List[str]:
        return [str(p.get("option") or p["code"]) for p in self.converter.params if p.get("secret")]

    def _parent_uid(self) -> str:
        """K1: from parent_instance_uid, else the parent's record, else its unique live display name."""
        explicit = identity.task_id(self.params.get("parent_instance_uid"))
        if explicit:
            return explicit
        name = str(self.params.get("parent_resource_name") or "")
        record = self.ctx.store.get_instance(self.ctx.service_name, name)
        if record and record.get("instance_uid"):
            return str(record["instance_uid"])
        found = self.ctx.api.find_live_by_name(self.ctx.service_id, name)
        if len(found) != 1:
            raise NubesError(
                f"parent_resource_name {name!r} matches {len(found)} live instances of {self.ctx.service_name}; "
                "give parent_instance_uid instead"
            )
        return found[0].uid

    def _find_current(self) -> Optional[Dict[str, Any]]:
        if self.parent is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.parent is unset; please report this bug")
        for item in self.parent.subresources(self.sub):
            if as_text(item.get(self.key_code)) == self.key:
                return {str(k): as_text(v) for k, v in item.items()}
        return None

    def _present(self, parent_uid: str, record: Optional[Dict[str, Any]], desired: Dict[str, str]) -> None:
        ops = self.spec.get("operations") or {}
        desired = dict(desired)
        desired[self.key_code] = self.key
        if self.current is None:
            self.reason = f"the {self.sub} {self.key!r} does not exist: create it"
            values = self.converter.for_create(desired)
            self._run(str(ops.get("create") or f"create_{self.sub}"), values)
            self._write(parent_uid, values)
            return
        if record is None and not self.ctx.flag("adopt_existing_on_create", False):
            raise NubesError(
                f"{self.module_name}: the {self.sub} {self.key!r} already exists in instance {parent_uid} and is "
                "not managed by this state.\nReason: it exists and adopt_existing_on_create is false.\n"
                "Controlling flag: adopt_existing_on_create=false\n"
                f"Choose one:\n  1. change {self.key_option} to create a new {self.sub};\n  2. {TWO_CHOICES[1]}."
            )
        if record is not None:
            changed = changed_codes(
                desired,
                record.get("digests") or {},
                str(record.get("salt") or ""),
                {str(p["code"]): str(p.get("type")) for p in self.converter.params},
            )
        else:
            secrets = set(self.converter.secret_codes())
            changed = sorted(
                c
                for c, v in desired.items()
                if c not in secrets and c in self.current and not equivalent(self.current[c], v)
            )
        if not changed:
            self.reason = f"the {self.sub} {self.key!r} matches the task"
            if record is None:
                self.reason = f"adopt the existing {self.sub} {self.key!r}"
                self._write(parent_uid, desired)
            return
        modify = ops.get("modify")
        if not modify:
            raise NubesError(
                f"the {self.sub} {self.key!r} differs from the task in {', '.join(changed)}, but the service cannot "
                f"modify a {self.sub}; delete it (state=absent) and re-create it"
            )
        self.reason = f"the {self.sub} {self.key!r} differs from the task in {', '.join(changed)}: modify it"
        self._run(str(modify), desired)
        self._write(parent_uid, desired, record)

    def _absent(self, parent_uid: str, record: Optional[Dict[str, Any]]) -> None:
        if self.current is None:
            self.reason = f"the {self.sub} {self.key!r} does not exist"
        else:
            self.reason = f"delete the {self.sub} {self.key!r}"
            ops = self.spec.get("operations") or {}
            self._run(str(ops.get("delete") or f"delete_{self.sub}"), {self.key_code: self.key})
        if record is not None:
            self.changed = True
            if not self.ctx.check_mode:
                self.ctx.store.delete_sub(self.ctx.service_name, parent_uid, self.sub, self.key)

    def _run(self, operation: str, values: Dict[str, str]) -> None:
        self.changed = True
        self.operations_run.append(operation)
        if self.ctx.check_mode:
            return
        if self.parent is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.parent is unset; please report this bug")
        op_id = self.ctx.svc_operation_id(operation, self.parent)
        op_uid = self.ctx.executor.start(self.parent.uid, operation, op_id, values)
        if not self.ctx.flag("wait", True):
            self.last_operation = OperationResult(op_uid, operation, False)
            return
        self.last_operation = self.ctx.executor.wait(op_uid, operation, self.ctx.timeout(operation))

    def _write(self, parent_uid: str, values: Dict[str, str], record: Optional[Dict[str, Any]] = None) -> None:
        self.changed = True
        if self.ctx.check_mode:
            return
        record = dict(record or {})
        salt = str(record.get("salt") or new_salt())
        digests = dict(record.get("digests") or {})
        applied = dict(record.get("params") or {})
        for code, value in values.items():
            digests[code] = digest(salt, code, value)
        applied.update(self.converter.public(values))
        record.update({"status": STATUS_PRESENT, "salt": salt, "digests": digests, "params": applied})
        self.ctx.store.put_sub(self.ctx.service_name, parent_uid, self.sub, self.key, record)

    def _result(self, parent_uid: str, desired: Dict[str, str]) -> Dict[str, Any]:
        before = dict(self.current or {})
        after: Dict[str, Optional[str]] = {}
        if self.params.get("state", "present") == "present":
            after = dict(before)
            after.update(desired)
            after[self.key_code] = self.key
        result: Dict[str, Any] = {
            "changed": self.changed,
            "subresource": {
                "parent_instance_uid": parent_uid,
                "name": self.sub,
                "key": self.key,
                "exists": self.current is not None,
                "params": self.converter.options_view(after if after else before),
            },
            "operations": self.operations_run,
            "operation": self.last_operation.as_dict() if self.last_operation else None,
            "diagnostics": f"{self.module_name}: {self.reason}\n{self.key_option}: {self.key}\n"
            f"parent_instance_uid: {parent_uid}",
        }
        if self.ctx.diff_mode:
            result["diff"] = {
                "before": self.converter.options_view(before, mask=True),
                "after": self.converter.options_view(after, mask=True),
            }
        return result
