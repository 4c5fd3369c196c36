# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The info module's task: read-only; state, outputs and sub-resources of one instance."""

from __future__ import annotations

from typing import Any, Dict, List

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity, records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter

RECORD_FIELDS = ("status", "instance_uid", "git_revision", "operation", "updated_at")


class InfoTask:
    """Find the instance (record, instance_uid or unique live display name) and describe it."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.spec = ctx.spec
        self.converter = ParamConverter(self.spec.params)

    def run(self) -> Dict[str, Any]:
        name = str(self.ctx.params.get("resource_name") or "")
        ref = identity.ResourceRef(
            self.spec.name,
            self.spec.service_id,
            self.ctx.options.workspace,
            name,
            identity.task_id(self.ctx.params.get("instance_uid")),
        )
        record = records.normalise(self.ctx.store.get_instance(self.spec.name, name)) if name else None
        uid = identity.recorded_uid(ref, record)
        instance = identity.find(self.ctx.api, uid)
        if instance is None and not uid and name:
            found = self.ctx.api.find_live_by_name(self.spec.service_id, name)
            if len(found) > 1:
                raise NubesError(
                    f"{len(found)} live instances are named {name!r} ({', '.join(i.uid for i in found)}); "
                    "give instance_uid"
                )
            instance = self.ctx.api.get_instance(found[0].uid) if found else None  # list items carry no params
        if instance is not None and instance.service_id not in (None, self.spec.service_id):
            raise NubesError(  # K4a
                f"instance {instance.uid} is {instance.service_label}, not {self.spec.name} "
                f"(service {self.spec.service_id}); use the info module of its service"
            )
        result: Dict[str, Any] = {"changed": False, "exists": instance is not None and instance.live}
        if record is not None:
            result["state"] = {k: record[k] for k in RECORD_FIELDS if k in record}
        if instance is not None:
            result["instance"] = self._view(instance, name)
            result["instance_uid"] = instance.uid
            result["status"] = instance.status
            result["status_raw"] = instance.status_raw
            result["outputs"] = result["instance"]["outputs"]
            result["subresources"] = self._subresources(instance)
        return result

    def _view(self, instance: Instance, name: str) -> Dict[str, Any]:
        return {
            "instance_uid": instance.uid,
            "resource_name": instance.display_name or name,
            "service_id": self.spec.service_id,
            "status": instance.status,
            "status_raw": instance.status_raw,
            "operation_pending": instance.operation_pending,
            "operation_in_progress": instance.operation_in_progress,
            "params": self.converter.options_view(instance.params()),
            "outputs": self.ctx.outputs(instance),
        }

    def _subresources(self, instance: Instance) -> Dict[str, List[Dict[str, Any]]]:
        result: Dict[str, List[Dict[str, Any]]] = {}
        for sub in self.spec.subresources:
            converter = ParamConverter(sub.params)
            items = [
                converter.options_view({str(k): as_text(v) for k, v in item.items()})
                for item in instance.subresources(sub.name)
            ]
            result[sub.name] = items
        return result
