# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory and status persisted in the target cluster: one ConfigMap per component in its namespace (C3, C8).

Name ``<reversed prefix>.<component>`` (``cloud.nubes.component.web``), label ``<prefix>/component=<name>`` so that
``kubectl get configmaps -l component.nubes.cloud/component`` lists all components. The inventory and a Helm
chart's delete hooks have data keys of their own, gzip compressed into ``binaryData`` when large. Stored through
``kube.records.RecordStore``: updates carry the resourceVersion read before, so two runs on one component cannot
overwrite each other silently.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import CONFIG_MAPS, NAMESPACES
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Conflict, Forbidden, KubeError
from ansible_collections.nubes.cloud.plugins.module_utils.kube.records import (
    RecordStore,
    dump_json,
    gunzip_b64,
    gzip_b64,
)

FORMAT_VERSION = "1"
COMPRESS_ABOVE = 64 * 1024
# record fields with a data key of their own (``<key>.gz`` in binaryData above COMPRESS_ABOVE), and their empty value
LARGE_FIELDS = (("inventory", "[]"), ("deleteHooks", "{}"))
MANAGED_BY = "nubes.cloud.component"


class StoreConflictError(KubeError):
    """Someone else changed the component record while this run was using it."""


def record_name(prefix: str, name: str) -> str:
    """``component.nubes.cloud`` + ``web`` -> ``cloud.nubes.component.web``."""
    return ".".join(reversed(prefix.split("."))) + "." + name


class ComponentStore:
    """Load, save and delete the record of one component."""

    def __init__(self, api: KubeApi, namespace: str, name: str, prefix: str) -> None:
        self.api = api
        self.records = RecordStore(api, CONFIG_MAPS, namespace)
        self.namespace = namespace
        self.name = name
        self.prefix = prefix
        self.object_name = record_name(prefix, name)
        self.resource_version: Optional[str] = None
        self.saved: Optional[Dict[str, Any]] = None
        self.writes = 0
        self.owner_labels: Dict[str, str] = {}

    @property
    def label(self) -> str:
        """Label key that marks component records."""
        return f"{self.prefix}/component"

    def load(self) -> Optional[ComponentStatus]:
        """The record, or None for a component never applied."""
        live = self.records.get(self.object_name)
        if live is None:
            return None
        self.resource_version = live["metadata"].get("resourceVersion")
        data = live.get("data") or {}
        binary = live.get("binaryData") or {}
        try:
            record = json.loads(data.get("status") or "{}")
            for key, empty in LARGE_FIELDS:
                if f"{key}.gz" in binary:
                    record[key] = json.loads(gunzip_b64(binary[f"{key}.gz"]))
                else:
                    record[key] = json.loads(data.get(key) or empty)
            loaded = ComponentStatus.from_dict(record)
        except (ValueError, OSError, KeyError, TypeError, AttributeError):
            raise ComponentError(
                f"the component record ConfigMap {self.namespace}/{self.object_name} is corrupt; inspect it with "
                "kubectl, fix or delete it (deleting it forgets which objects the component owns)"
            ) from None
        self.saved = loaded.comparable()
        return loaded

    def ensure_namespace(self, create: bool) -> Optional[Dict[str, Any]]:
        """Make sure the component's namespace exists (the record lives there); the namespace when it was created
        now, else None."""
        try:
            if self.api.get(NAMESPACES, "", self.namespace) is not None:
                return None
        except Forbidden:
            return None  # an identity that may not read namespaces: the record's write will tell
        if not create:
            raise ComponentError(
                f"namespace {self.namespace} of the component does not exist and the missing-namespaces policy is "
                "DoNotCreate; create the namespace first"
            )
        body = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": self.namespace, "labels": dict(self.owner_labels)},
        }
        try:
            created: Dict[str, Any] = self.api.create(NAMESPACES, "", body, field_manager=self.prefix)
        except Conflict:
            return None
        self.writes += 1
        return created

    def _body(self, record: ComponentStatus) -> Dict[str, Any]:
        persisted = record.to_dict()
        data: Dict[str, str] = {"version": FORMAT_VERSION}
        binary: Dict[str, str] = {}
        for key, _empty in LARGE_FIELDS:
            if key not in persisted:
                continue
            text = dump_json(persisted.pop(key))
            if len(text) > COMPRESS_ABOVE:
                binary[f"{key}.gz"] = gzip_b64(text)
            else:
                data[key] = text
        data["status"] = json.dumps(persisted, sort_keys=True)
        body: Dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": self.object_name,
                "namespace": self.namespace,
                # the owner label too: the record is never a "foreign" ConfigMap for the deletion gate (C16)
                "labels": {self.label: self.name, "app.kubernetes.io/managed-by": MANAGED_BY, **self.owner_labels},
            },
            "data": data,
        }
        if binary:
            body["binaryData"] = binary
        if self.resource_version:
            body["metadata"]["resourceVersion"] = self.resource_version
        return body

    def save(self, record: ComponentStatus, force: bool = False) -> bool:
        """Write the record when it changed (or ``force``); True when a write happened. NotFound when the record
        (or its namespace) is gone meanwhile."""
        comparable = record.comparable()
        if not force and comparable == self.saved:
            return False
        try:
            written = self.records.write(self._body(record), field_manager=self.prefix)
        except Conflict:
            raise StoreConflictError(
                f"component {self.namespace}/{self.name}: its record {self.object_name} was changed by another "
                "run at the same time; run the task again (only one run per component at a time)"
            ) from None
        self.resource_version = written["metadata"].get("resourceVersion")
        self.saved = comparable
        self.writes += 1
        return True

    def delete(self, as_written: bool = False) -> bool:
        """Remove the record (after the component's deletion finished). ``as_written``: only as this run last wrote it
        (resourceVersion precondition, issue 27: a failed first apply gets a Conflict instead of removing a record
        another run wrote meanwhile)."""
        if as_written and self.resource_version is None:
            return False  # this run wrote no record
        gone = self.records.delete(self.object_name, self.resource_version if as_written else None)
        if gone:
            self.writes += 1
        return gone
