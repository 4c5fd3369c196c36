# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The find step of an instance task: what it returns (:class:`InstanceFound`) and how it gets it.

The recorded identity (K1-K4b; a conflict is returned, for lifecycle.decide() to refuse), else the display name
(list items are only candidates: deck-api 4.1), then the live instance itself, `GET /instances/{uid}` with its
params; waits for, or with `wait: false` reports, only the record's own operation (P27). Nothing is read when
lifecycle.reads_live says so (P29: forget only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, NamedTuple, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import reads_live
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.placeholder import Placeholder
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import (
    STATUS_CREATE_REQUESTED,
    STATUS_PRESENT,
    Record,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import Found, Settled, Task


def is_own_record(record: Optional[Record], instance: Optional[Instance]) -> bool:
    """The record belongs to the live instance (or is this task's create whose uid was lost)."""
    if record is None or instance is None:
        return False
    recorded = record.instance_uid or ""
    return not recorded or recorded.lower() == instance.uid.lower()


@dataclass(frozen=True)
class InstanceFound(Found):
    """What an instance task found: besides the record, the instance and its own operation, the live instances
    with the resource_name, a recorded instance that is gone, whether the instance was read, and the identity."""

    live_uids: Tuple[str, ...] = ()  # live instances with the resource_name (looked up only when no id is known)
    lost_uid: str = ""  # P20: the uid of a recorded instance that is missing or deleted
    live_read: bool = True  # P29: False when nothing was read (forget only, or an identity conflict)
    resolved: identity.Resolved = field(default_factory=identity.Resolved)  # the id used, or a K4a/K4b conflict

    @property
    def own_record(self) -> bool:
        return is_own_record(self.record, self.instance)

    @property
    def recorded(self) -> bool:
        """The record holds this resource: its instance is the live one, or none was read (gone, or not read)."""
        if self.record is None or not self.record.instance_uid:
            return False
        return self.instance is None or self.own_record

    @property
    def live(self) -> Dict[str, Optional[str]]:
        """The live params (none when nothing was found)."""
        return self.instance.params() if self.instance is not None else {}


class Lookup(NamedTuple):
    """What the lookup by display name changed of the find step's values."""

    record: Optional[Record]
    instance: Optional[Instance]
    live_uids: Tuple[str, ...]
    lost_uid: str


class InstanceFind(Task):
    """The task's input (its identity, built once, and its values) and the find step."""

    def __init__(self, ctx: TaskContext) -> None:
        super().__init__(ctx)
        self.spec = ctx.spec
        self.opts = ctx.options
        self.converter = ParamConverter(self.spec.params, resolver=ctx.resolve_name)
        self.placeholders = self.converter.placeholder_codes()
        params = ctx.params
        self.ref = identity.ResourceRef(
            self.spec.name,
            self.spec.service_id,
            self.opts.workspace,
            identity.task_name(params.get("resource_name")),  # issue 24: a blank name is no name, like ""
            identity.task_id(params.get("instance_uid")),  # K1
        )
        self.desired: Dict[str, str] = {}
        self.preloaded: Optional[Instance] = None  # read to name the task (only instance_uid given); used once

    def _name_from_uid(self) -> str:
        """Only instance_uid given: the recorded resource_name, else the live instance's display name."""
        recorded = self.ctx.store.find_by_uid(self.ref, self.ref.task_uid)
        if recorded is not None:
            return recorded[0].resource_name or self.ref.task_uid
        self.preloaded = identity.find(self.ctx.api, self.ref.task_uid)
        if self.preloaded is None:
            raise NubesError(
                f"instance {self.ref.task_uid} (instance_uid) does not exist; check the uid, or give resource_name "
                "to create a new instance"
            )
        return self.preloaded.display_name or self.ref.task_uid

    def find(self) -> InstanceFound:
        record = self.ctx.store.get(self.ref)
        resolved = identity.resolve(self.ref, record)  # K4a / K4b: a conflict is decided by lifecycle.decide()
        if resolved.conflict:
            return InstanceFound(record, live_read=False, resolved=resolved)
        uid = resolved.uid
        known = bool(record or self.ref.task_uid)
        if not reads_live(self.opts.state, self.spec.lifecycle.suspendable, self.opts.suspend_on_destroy, known):
            # P29: not even read; the result names the uid it forgets
            stub = Instance({"instanceUid": uid, "displayName": self.ref.resource_name}) if uid else None
            return InstanceFound(record, stub, live_read=False, resolved=resolved)
        instance = self._preloaded(uid)
        if instance is None:
            instance = identity.find(self.ctx.api, uid)  # K2: no HTTP call when uid is ""
        live_uids: Tuple[str, ...] = ()
        lost_uid = ""
        if not self.ref.task_uid and (instance is None or not instance.live):
            record, instance, live_uids, lost_uid = self._lookup_by_name(record, instance, uid)
        own = Settled(record)
        if instance is not None and is_own_record(record, instance):
            own = self.settle(record)
            record = own.record
            if own.waited:
                if record is None:
                    lost_uid = ""  # its own delete (or destroy) finished: gone as asked, nothing was lost
                instance = self.ctx.api.get_instance(instance.uid) or instance
        return InstanceFound(record, instance, own, live_uids=live_uids, lost_uid=lost_uid, resolved=resolved)

    def _preloaded(self, uid: str) -> Optional[Instance]:
        """The instance read to name the task, when it is the one to find; once (a second attempt reads again)."""
        preloaded = self.preloaded
        if preloaded is None or not uid or preloaded.uid.lower() != uid.lower():
            return None
        self.preloaded = None
        return preloaded

    def _lookup_by_name(self, record: Optional[Record], instance: Optional[Instance], recorded: str) -> Lookup:
        """No id, or the recorded instance is gone: live candidates by display name (list items carry no params,
        so the one candidate is then read by its uid). Never a deleted instance (issue 14)."""
        lost_uid = ""
        if recorded and record is not None and record.status == STATUS_PRESENT:
            lost_uid = recorded  # P20: the recorded instance is missing or deleted
        if self.opts.state != "present" and recorded:
            return Lookup(record, instance, (), lost_uid)
        placeholder = Placeholder(self.ctx.api, self.spec.service_id, self.ref.resource_name)
        found = placeholder.live()
        if not found and not self.ctx.check_mode:
            found = placeholder.awaited(record)  # issue 24: a create whose outcome is still unknown
        live_uids = tuple(i.uid for i in found)
        if len(found) != 1:
            return Lookup(record, instance, live_uids, lost_uid)
        ours = record is not None and record.status == STATUS_CREATE_REQUESTED
        # present: the candidate to adopt or refuse; absent/deleted without a record: shown as it is (its uid and
        # status, suspended included: issue 23) and left alone by the decision, which says how to name it
        return Lookup(record if ours else None, self.ctx.api.get_instance(found[0].uid), live_uids, lost_uid)
