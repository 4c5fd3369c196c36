# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component's own namespace on ``state: absent``: removed again when the component created it, but only when
nothing but the component's record (and what Kubernetes puts in every namespace) is left in it."""

from __future__ import annotations

import time
from typing import List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import NAMESPACES
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, Forbidden

# (kind, name) that Kubernetes creates in every namespace; kinds whose objects come and go by themselves
EVERY_NAMESPACE = (("ServiceAccount", "default"), ("ConfigMap", "kube-root-ca.crt"))
TRANSIENT_KINDS = ("Event",)
LISTED_PER_TYPE = 20
POLL_SECONDS = 0.5


def leftovers(api: KubeApi, namespace: str, ignore: List[tuple]) -> List[str]:
    """Objects in the namespace other than ``ignore`` (kind, name) and what every namespace holds (at most a few)."""
    found: List[str] = []
    skip = set(EVERY_NAMESPACE) | set(ignore)
    for res in api.discovery.namespaced_listable():
        if res.kind in TRANSIENT_KINDS:
            continue
        try:
            items = api.list(res, namespace, limit=LISTED_PER_TYPE, metadata_only=True)
        except Forbidden:
            found.append(f"{res.kind} objects this identity may not list")  # cannot prove the namespace is empty
            break
        except ApiError:
            continue  # a type not served right now (an aggregated API that is down)
        for item in items:
            name = str((item.get("metadata") or {}).get("name"))
            if (res.kind, name) not in skip:
                found.append(f"{res.kind} {namespace}/{name}")
        if len(found) >= 5:
            break
    return found


def delete_own_namespace(api: KubeApi, store: ComponentStore, timeout: float) -> Optional[str]:
    """Delete the namespace the component created, and wait until it is gone; a warning (and no deletion) when
    something else lives in it."""
    others = leftovers(api, store.namespace, [("ConfigMap", store.object_name)])
    if others:
        return (
            f"namespace {store.namespace} was created by this component but is kept: it still holds "
            f"{', '.join(others[:5])}"
        )
    api.delete(NAMESPACES, "", store.namespace)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and api.get(NAMESPACES, "", store.namespace) is not None:
        time.sleep(POLL_SECONDS)
    return None
