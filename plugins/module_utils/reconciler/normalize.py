# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation and normalisation of desired objects (reference 3.3 steps 1 to 4, C10)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import ObjectKey, TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ordering import API_SERVICE, CRD, NAMESPACE
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import (
    Defaults,
    ObjectPolicies,
    check_annotation_names,
    object_policies,
)

# Returns True (namespaced), False (cluster-scoped) or None (the API server does not know the type).
ScopeResolver = Callable[[str, str, str], Optional[bool]]

_SERVER_FIELDS = ("resourceVersion", "generation", "managedFields", "uid", "creationTimestamp", "selfLink")


@dataclass
class DesiredObject:
    """A validated, normalised object of the desired set."""

    manifest: Dict[str, Any]
    group: str
    version: str
    kind: str
    namespace: str
    name: str
    index: int
    policies: ObjectPolicies
    namespaced: Optional[bool] = None
    managed_types: List[TypeInfo] = field(default_factory=list)

    @property
    def key(self) -> ObjectKey:
        """Identity: group, kind, namespace, name."""
        return (self.group, self.kind, self.namespace, self.name)

    def describe(self) -> str:
        """Human-readable reference for messages."""
        gk = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{gk} {self.namespace}/{self.name}" if self.namespace else f"{gk} {self.name}"


def split_api_version(api_version: str) -> Tuple[str, str]:
    """``apps/v1`` -> (``apps``, ``v1``); ``v1`` -> ("", ``v1``)."""
    group, _sep, version = api_version.rpartition("/")
    return group, version


def _check_string_map(obj_ref: str, what: str, value: Any) -> Dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(f"{obj_ref}: metadata.{what} must be a mapping of strings")
    for key, val in value.items():
        if not isinstance(key, str) or not isinstance(val, str):
            raise ValidationError(
                f"{obj_ref}: metadata.{what}[{key!r}] must be a string (got {type(val).__name__}); quote the value"
            )
    return dict(value)


def _fold_string_data(manifest: Dict[str, Any]) -> None:
    """Merge Secret ``stringData`` into ``data`` (server-side apply handles stringData badly)."""
    string_data = manifest.pop("stringData", None)
    if not string_data:
        return
    data = dict(manifest.get("data") or {})
    for key, value in string_data.items():
        data[key] = base64.b64encode(str(value).encode("utf-8")).decode("ascii")
    manifest["data"] = data


def _strip_markers(metadata: Dict[str, Any], markers: Markers) -> None:
    labels = metadata.get("labels")
    if isinstance(labels, dict):
        labels.pop(markers.owner_label, None)
        if not labels:
            metadata.pop("labels")
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(markers.owner_label, None)
        annotations.pop(markers.digest_annotation, None)
        if not annotations:
            metadata.pop("annotations")


def _normalise_one(raw: Any, index: int, markers: Markers) -> Dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ValidationError(f"object #{index + 1} is not a mapping; each object must be a Kubernetes manifest")
    # Copies of the levels normalisation changes (the object, its metadata, labels, annotations, Secret data), not
    # of the whole object: a CRD's schema of hundreds of KiB is shared with the parsed source, never written to.
    manifest: Dict[str, Any] = dict(raw)
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    metadata = dict(manifest["metadata"]) if isinstance(manifest.get("metadata"), Mapping) else {}
    ref = f"object #{index + 1} ({kind or '?'} {metadata.get('name', '?')})"
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        raise ValidationError(f"{ref}: apiVersion and kind are required")
    if metadata.get("generateName"):
        raise ValidationError(f"{ref}: metadata.generateName is not supported; give the object a fixed metadata.name")
    if not isinstance(metadata.get("name"), str) or not metadata.get("name"):
        raise ValidationError(f"{ref}: metadata.name is required")
    metadata["labels"] = _check_string_map(ref, "labels", metadata.get("labels"))
    metadata["annotations"] = _check_string_map(ref, "annotations", metadata.get("annotations"))
    for key in _SERVER_FIELDS:
        metadata.pop(key, None)
    _strip_markers(metadata, markers)
    for key in ("labels", "annotations"):
        if key in metadata and not metadata[key]:
            metadata.pop(key)
    manifest["metadata"] = metadata
    if split_api_version(api_version)[0] == "" and kind == "Secret":
        _fold_string_data(manifest)
    return manifest


def _types_from_set(manifests: Sequence[Dict[str, Any]]) -> Tuple[Dict[Tuple[str, str], bool], Set[Tuple[str, str]]]:
    """Types defined by CRDs (with scope) and group/versions served by APIServices of the same set."""
    crd_types: Dict[Tuple[str, str], bool] = {}
    apiservice_gvs: Set[Tuple[str, str]] = set()
    for manifest in manifests:
        group = split_api_version(manifest["apiVersion"])[0]
        spec = manifest.get("spec") or {}
        if (group, manifest["kind"]) == CRD:
            crd_types[(str(spec.get("group", "")), str((spec.get("names") or {}).get("kind", "")))] = (
                spec.get("scope", "Namespaced") == "Namespaced"
            )
        elif (group, manifest["kind"]) == API_SERVICE:
            apiservice_gvs.add((str(spec.get("group", "")), str(spec.get("version", ""))))
    return crd_types, apiservice_gvs


def managed_types_of(group: str, kind: str, manifest: Mapping[str, Any]) -> List[TypeInfo]:
    """CRD -> {crd group, *, crd kind}; APIService -> {group, version, *} (reference 3.2)."""
    spec = manifest.get("spec") or {}
    if (group, kind) == CRD:
        return [TypeInfo(str(spec.get("group", "")), "*", str((spec.get("names") or {}).get("kind", "")))]
    if (group, kind) == API_SERVICE:
        return [TypeInfo(str(spec.get("group", "")), str(spec.get("version", "")), "*")]
    return []


def normalise_objects(
    objects: Sequence[Any],
    namespace: str,
    markers: Markers,
    defaults: Defaults,
    scope_of: ScopeResolver,
) -> List[DesiredObject]:
    """Validate and normalise the desired set; raise ValidationError with a precise message on the first problem."""
    manifests = [_normalise_one(raw, index, markers) for index, raw in enumerate(objects)]
    crd_types, apiservice_gvs = _types_from_set(manifests)
    result: List[DesiredObject] = []
    seen: Dict[ObjectKey, int] = {}
    for index, manifest in enumerate(manifests):
        group, version = split_api_version(manifest["apiVersion"])
        kind = manifest["kind"]
        metadata = manifest["metadata"]
        name = metadata["name"]
        namespaced = scope_of(group, version, kind)
        if namespaced is None and (group, kind) in crd_types:
            namespaced = crd_types[(group, kind)]
        elif namespaced is None and (group, version) not in apiservice_gvs:
            raise ValidationError(
                f"object #{index + 1} ({kind} {name}): the API server does not know {manifest['apiVersion']} {kind} "
                "and no CustomResourceDefinition or APIService in this set defines it; install the type first or "
                "add its CRD to the objects"
            )
        if namespaced:
            metadata["namespace"] = metadata.get("namespace") or namespace  # C10: default to the deployment namespace
            if not metadata["namespace"]:
                raise ValidationError(f"object #{index + 1} ({kind} {name}) is namespaced but has no namespace")
        elif namespaced is False:
            metadata.pop("namespace", None)
        obj_namespace = str(metadata.get("namespace") or "")
        annotations = metadata.get("annotations") or {}
        unknown = check_annotation_names(annotations, markers.prefix)
        ref = f"object #{index + 1} ({kind} {name})"
        if unknown:
            raise ValidationError(f"{ref}: unknown annotation(s) {', '.join(unknown)}; check the spelling")
        try:
            policies = object_policies(annotations, markers.prefix, defaults)
        except ValidationError as exc:
            raise ValidationError(f"{ref}: {exc}") from None
        if policies.purge_order != c.PURGE_ORDER_UNSET and (group, kind) in (NAMESPACE, CRD, API_SERVICE):
            raise ValidationError(f"{ref}: a purge order is not allowed on Namespaces, CRDs and APIServices")
        desired = DesiredObject(
            manifest=manifest,
            group=group,
            version=version,
            kind=kind,
            namespace=obj_namespace,
            name=name,
            index=index,
            policies=policies,
            namespaced=namespaced,
            managed_types=managed_types_of(group, kind, manifest),
        )
        if desired.key in seen:
            raise ValidationError(f"{ref} is a duplicate of object #{seen[desired.key] + 1}; remove one of them")
        seen[desired.key] = index
        result.append(desired)
    return result
