# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A task's desired objects: its source rendered for the component's revision (templates look objects up in the
target cluster, reference 2.2), or its inline definitions; and a Helm chart's delete-phase sets."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import inline_definitions
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderInput
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import render_delete_hooks, render_source
from ansible_collections.nubes.cloud.plugins.module_utils.component.task import ComponentTask
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi


class ClusterLookups:
    """The templates' ``lookup`` and ``lookup_list``, answered by the target cluster."""

    def __init__(self, api: KubeApi) -> None:
        self.api = api

    def lookup(self, api_version: str, kind: str, name: str, namespace: str) -> Optional[Dict[str, Any]]:
        """One object, None when it or its type does not exist."""
        group, _sep, version = api_version.rpartition("/")
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return None
        return self.api.get(res, namespace if res.namespaced else "", name)

    def lookup_list(self, api_version: str, kind: str, namespace: str, selector: str) -> List[Dict[str, Any]]:
        """The objects of a type (by label selector), [] when the type does not exist."""
        group, _sep, version = api_version.rpartition("/")
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return []
        return self.api.list(res, namespace if res.namespaced else "", label_selector=selector or None)


def render_input(task: ComponentTask, api: KubeApi, revision: int) -> RenderInput:
    """What the templates see: C2 the spec (read-only), C4/C10 the placement namespace and name, the revision."""
    lookups = ClusterLookups(api)
    return RenderInput(
        files=task.files or {},
        spec=task.spec,
        namespace=task.deploy_namespace,
        name=task.deploy_name,
        component_namespace=task.namespace,
        component_name=task.name,
        revision=revision,
        lookup=lookups.lookup,
        lookup_list=lookups.lookup_list,
        run_command=task.run_command,
        annotation_prefix=task.annotation_prefix,
    )


def desired_objects(task: ComponentTask, api: KubeApi, revision: int) -> List[Dict[str, Any]]:
    """The desired objects (C2: the spec is passed read-only; C4/C10: placement namespace and name)."""
    if task.files is not None:
        return render_source(task.source_kind, task.files, render_input(task, api, revision))
    return inline_definitions(task.definitions if task.definitions is not None else [])


def delete_hooks(task: ComponentTask, api: KubeApi, revision: int) -> Dict[str, List[Dict[str, Any]]]:
    """The source's delete-phase sets (a Helm chart's ``pre-delete``/``post-delete`` hooks), {} for the others."""
    if task.files is None:
        return {}
    return render_delete_hooks(task.source_kind, task.files, render_input(task, api, revision))
