# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The info module's task: read-only; state, outputs and sub-resources of one instance."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter

RECORD_FIELDS = ("status", "instance_uid", "git_revision", "operation_uid", "updated_at", "params")


class InfoTask:
    """Find the instance (record, instance_uid or unique live display name) and describe it."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.converter = ParamConverter(ctx.service.get("params") or [])

    def run(self) -> Dict[str, Any]:
        name = str(self.ctx.params.get("resource_name") or "")
        record = self.ctx.store.get_instance(self.ctx.service_name, name) if name else None
        uid = identity.resolve_identity(
            self.ctx.params.get("instance_uid"),
            record,
            {"service_id": self.ctx.service_id, "workspace": self.ctx.store.workspace},
        )
        instance = identity.find(self.ctx.api, uid)
        if instance is None and not uid and name:
            found = self.ctx.api.find_live_by_name(self.ctx.service_id, name)
            if len(found) > 1:
                raise NubesError(
                    f"{len(found)} live instances are named {name!r} ({', '.join(i.uid for i in found)}); "
                    "give instance_uid"
                )
            instance = found[0] if found else None
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
            "service_id": self.ctx.service_id,
            "status": instance.status,
            "status_raw": instance.status_raw,
            "operation_pending": instance.operation_pending,
            "operation_in_progress": instance.operation_in_progress,
            "params": self.converter.options_view(instance.params()),
            "outputs": self.ctx.outputs(instance),
        }

    def _subresources(self, instance: Instance) -> Dict[str, List[Dict[str, Any]]]:
        result: Dict[str, List[Dict[str, Any]]] = {}
        for sub in self.ctx.service.get("subresources") or []:
            converter = ParamConverter(sub.get("params") or [])
            items: List[Dict[str, Any]] = []
            for item in instance.subresources(str(sub["name"])):
                items.append(converter.options_view({str(k): as_text(v) for k, v in item.items()}))
            result[str(sub["name"])] = items
        return result


def optional(value: Optional[str]) -> str:
    return value or ""
