# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The info module's task: read-only; state, outputs and sub-resources of one instance, or a list of instances.

With `resource_name` or `instance_uid` it reads that instance (its record, then `GET /instances/{uid}`). Without
them it lists the service's instances (issue 16, as amazon.aws and hetzner.hcloud `_info` modules do): the paged
`GET /instances?serviceId=` (one call per 100 instances), filtered on what the list items carry (status, deleted),
then one `GET /instances/{uid}` per instance that passes, for its params and outputs (list items carry none).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity, records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import IdentityError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter

RECORD_FIELDS = ("status", "instance_uid", "git_revision", "operation", "updated_at")


class InfoTask:
    """Find the instance (record, instance_uid or live display name) and describe it, or list the instances."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.spec = ctx.spec
        self.converter = ParamConverter(self.spec.params)
        statuses = ctx.params.get("status")
        self.statuses = frozenset(str(s) for s in statuses) if statuses else None  # None: all but deleted

    def wanted(self, instance: Instance) -> bool:
        """The status filter; by default every status but deleted."""
        if self.statuses is None:
            return instance.live
        return instance.status in self.statuses

    def run(self) -> Dict[str, Any]:
        name = str(self.ctx.params.get("resource_name") or "")
        uid = identity.task_id(self.ctx.params.get("instance_uid"))
        if not name and not uid:
            return self._list()
        ref = identity.ResourceRef(self.spec.name, self.spec.service_id, self.ctx.options.workspace, name, uid)
        record = self.ctx.store.get(ref) if name else None
        found = self._find(ref, record)
        for instance in found:
            self._check_service(instance)
        views = [self._view(i, name) for i in found]
        result: Dict[str, Any] = {
            "changed": False,
            "exists": any(i.live for i in found),
            "instances": [view for view, instance in zip(views, found) if self.wanted(instance)],
        }
        if record is not None:
            stored = record.to_json()
            result["state"] = {k: stored[k] for k in RECORD_FIELDS if k in stored}
        if len(found) > 1:
            self.ctx.warn(
                f"{len(found)} live instances are named {name!r} ({', '.join(i.uid for i in found)}): they are all in "
                "`instances`, and `instance` is not set; give instance_uid to read one"
            )
        elif found:
            instance, view = found[0], views[0]
            result.update(
                instance=view,
                instance_uid=instance.uid,
                status=instance.status,
                status_raw=instance.status_raw,
                outputs=view["outputs"],
                subresources=self._subresources(instance),
            )
        return result

    def _find(self, ref: identity.ResourceRef, record: Optional[records.Record]) -> List[Instance]:
        """The recorded or named instance (K2: a uid is read, never looked up by name), else the live ones with
        the display name (list items carry no params, so each is read by its uid)."""
        resolved = identity.resolve(ref, record)
        if resolved.conflict:  # K4a/K4b: a read-only task has no decision to make; it stops with the seed's words
            raise IdentityError(resolved.conflict)
        uid = resolved.uid
        instance = identity.find(self.ctx.api, uid)
        if instance is not None:
            return [instance]
        if uid or not ref.resource_name:
            return []
        found = self.ctx.api.find_live_by_name(self.spec.service_id, ref.resource_name)
        read = [self.ctx.api.get_instance(item.uid) for item in found]
        return [i for i in read if i is not None]

    def _list(self) -> Dict[str, Any]:
        views = []
        for item in self.ctx.api.list_instances(self.spec.service_id):
            if not item.uid or not self.wanted(item):
                continue  # filtered on the list item: no further call
            instance = self.ctx.api.get_instance(item.uid)
            if instance is not None and self.wanted(instance):
                views.append(self._view(instance, item.display_name))
        return {"changed": False, "exists": bool(views), "instances": views}

    def _check_service(self, instance: Instance) -> None:
        if instance.service_id not in (None, self.spec.service_id):
            raise NubesError(  # K4a
                f"instance {instance.uid} is {instance.service_label}, not {self.spec.name} "
                f"(service {self.spec.service_id}); use the info module of its service"
            )

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
