# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Identity of service-generated ids (kcc-service-generated-ids.txt, rules K1-K4b).

One :class:`ResourceRef` per task, built once (KCC's typed `a.id`), says which resource the task means; the
record key and every message come from it.

- K1: the id comes only from the task's `instance_uid` or the recorded identity; never from
  `resource_name`; unset means "".
- K2: find() with an empty id returns "not found" at once, with no HTTP call; a 404 is plain not found.
- K3: create never sends an id (see DeckApi.create_instance).
- K4a: no id in the task + a record: do not compare ids; check the immutable parent fields; use the record.
  The live instance must also belong to the module's service (lifecycle.decide, rule K4a).
- K4b: an id in the task must equal the recorded one, else
  `cannot change resource identity (old="<recorded>", new="<task>")`.

A conflict (K4a, K4b) is a value, :class:`Resolved`: the instance task's situation hands it to lifecycle.decide(),
which refuses the task with the seed's words before anything live is read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, same_uid
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record


@dataclass(frozen=True)
class ResourceRef:
    """Which resource a task means: its service, workspace and name, and the ids the task gives (K1).

    Instance tasks: `resource_name` names the instance, `task_uid` is `instance_uid`. Sub-resource tasks:
    `parent_uid` is the parent instance, `sub`/`key` the sub-resource inside it, `resource_name` the parent's.
    """

    service: str
    service_id: int
    workspace: str
    resource_name: str = ""
    task_uid: str = ""
    sub: str = ""
    key: str = ""
    parent_uid: str = ""

    @property
    def parent_fields(self) -> Mapping[str, Any]:
        """K4a: the immutable fields a record must share with the task."""
        if self.sub:
            return {"workspace": self.workspace, "parent_instance_uid": self.parent_uid}
        return {"service_id": self.service_id, "workspace": self.workspace}

    def named(self, resource_name: str) -> ResourceRef:
        return replace(self, resource_name=resource_name)

    def in_parent(self, parent_uid: str) -> ResourceRef:
        """A sub-resource's identity once its parent's uid is known."""
        return replace(self, parent_uid=parent_uid)

    def subresource(self, parent_uid: str, sub: str, key: str) -> ResourceRef:
        """The identity of the sub-resource `sub` `key` of the instance `parent_uid` of this ref's service (P13:
        {parent instance uid, key}); `resource_name` stays the parent's."""
        return replace(self, task_uid="", sub=sub, key=key, parent_uid=parent_uid)


def task_id(value: Optional[str]) -> str:
    """K1: the id from the task only; unset is ""."""
    return (value or "").strip()


def task_name(value: Optional[str]) -> str:
    """The name the task gives (resource_name, a sub-resource's key): a blank one (only whitespace) is no name, like
    "" (issue 24: the API would be sent a display name it cannot show; the callers refuse it before any request)."""
    text = "" if value is None else str(value)
    return text if text.strip() else ""


@dataclass(frozen=True)
class Resolved:
    """The id a task uses (K1: "" when it has none), or why it cannot use one: the conflict (K4a/K4b) in the seed's
    words and its rule, which the situation hands to lifecycle.decide()."""

    uid: str = ""
    conflict: str = ""
    rule: str = ""


def resolve(ref: ResourceRef, record: Optional[Record]) -> Resolved:
    """The id to use: K4b when the task names one, K4a when only the record has one, else "" (K1). The record's
    fields are compared as stored (its identity fields included)."""
    return resolve_identity(ref.task_uid, record.to_json() if record is not None else None, ref.parent_fields)


def resolve_identity(
    task_uid: Optional[str],
    record: Optional[Mapping[str, Any]],
    parent_fields: Mapping[str, Any],
    uid_field: str = "instance_uid",
) -> Resolved:
    spec_id = task_id(task_uid)
    recorded = str(record.get(uid_field) or "") if record else ""
    if spec_id:
        if recorded and not same_uid(spec_id, recorded):
            # K4b
            return Resolved(spec_id, f'cannot change resource identity (old="{recorded}", new="{spec_id}")', "K4b")
        return Resolved(spec_id)
    if record is None or not recorded:
        return Resolved()
    for field, expected in parent_fields.items():  # K4a: immutable parent fields must match
        actual = record.get(field)
        if actual is not None and str(actual).lower() != str(expected).lower():
            conflict = (
                f"the recorded identity {recorded} belongs to {field}={actual!r}, but the task has "
                f"{field}={expected!r}; immutable parent fields cannot change: use another resource_name "
                "(or workspace) for the new resource"
            )
            return Resolved(recorded, conflict, "K4a")
    return Resolved(recorded)


def find(api: DeckApi, uid: str) -> Optional[Instance]:
    """K2: an empty id is "not found" without any HTTP call; a 404 is plain not found. Otherwise the live
    instance, read by its uid (`GET /instances/{uid}`, with its state and params)."""
    if not uid:
        return None
    return api.get_instance(uid)
