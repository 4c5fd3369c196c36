# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way this collection keeps records in a cluster: objects (ConfigMaps, Secrets, Leases) of one namespace,
read with their ``resourceVersion`` and written with it as a precondition.

A concurrent writer therefore gets :class:`~.errors.Conflict` instead of silently overwriting; a replace of an
object that is gone gets :class:`~.errors.NotFound`. Values are JSON; large ones are gzip-compressed. The state
backend (Secrets and Leases) and the component record (a ConfigMap) both store through :class:`RecordStore`.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo


def dump_json(value: Any) -> str:
    """Compact JSON with sorted keys (the same value always gives the same text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def gzip_b64(text: str) -> str:
    """Base64 of the gzip of UTF-8 text (a ConfigMap ``binaryData`` or Secret ``data`` value)."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"))).decode("ascii")


def gunzip_b64(value: str) -> str:
    """Inverse of ``gzip_b64``; ValueError or OSError when the value is not that."""
    return gzip.decompress(base64.b64decode(value)).decode("utf-8")


def b64_text(text: str) -> str:
    """A Secret ``data`` value of UTF-8 text."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def text_b64(value: str) -> str:
    """Inverse of ``b64_text``."""
    return base64.b64decode(value).decode("utf-8")


class RecordStore:
    """Objects of one resource type in one namespace, with optimistic concurrency."""

    def __init__(self, api: KubeApi, resource: ResourceInfo, namespace: str) -> None:
        self.api = api
        self.resource = resource
        self.namespace = namespace

    def get(self, name: str) -> Optional[Dict[str, Any]]:
        """The object, or None when it does not exist."""
        return self.api.get(self.resource, self.namespace, name)

    def list(self, label_selector: str) -> List[Dict[str, Any]]:
        """The objects carrying these labels."""
        return self.api.list(self.resource, self.namespace, label_selector=label_selector)

    def write(self, body: Dict[str, Any], field_manager: Optional[str] = None) -> Dict[str, Any]:
        """Create the object (no ``metadata.resourceVersion``) or replace it with its resourceVersion as the
        precondition. Raises Conflict (exists already, or changed since read) and NotFound (gone, or its namespace)."""
        if body["metadata"].get("resourceVersion"):
            return self.api.replace(
                self.resource, self.namespace, body["metadata"]["name"], body, field_manager=field_manager
            )
        return self.api.create(self.resource, self.namespace, body, field_manager=field_manager)

    def delete(self, name: str, resource_version: Optional[str] = None) -> bool:
        """Delete (precondition: ``resource_version`` when given); False when it was gone already."""
        return self.api.delete(self.resource, self.namespace, name, resource_version=resource_version)
