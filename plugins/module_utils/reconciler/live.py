# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading live objects with few calls: one LIST per type and namespace, GET only for what the LIST cannot show."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError

ListKey = Tuple[ResourceInfo, str]
STORAGE_NOT_READY = (429, 503)  # "storage is (re)initializing" right after a type appears


class LiveReader:
    """Per-step snapshot of live objects.

    ``owned_selector`` LISTs return only objects carrying the component's owner label. An object missing from such a
    list is either absent or not labelled by us, so it is confirmed with a GET. ``unfiltered`` LISTs (metadata only)
    are used for adoption checks of several new objects of one type and namespace.
    """

    def __init__(self, api: KubeApi, owned_selector: str) -> None:
        self.api = api
        self.owned_selector = owned_selector
        self._lock = threading.Lock()
        self._lists: Dict[ListKey, Dict[str, Dict[str, Any]]] = {}
        self._complete: Dict[ListKey, bool] = {}

    def prefetch(self, keys: Iterable[ListKey], pool: ThreadPoolExecutor, unfiltered: bool = False) -> None:
        """LIST each (resource, namespace) once, concurrently."""
        todo = []
        with self._lock:
            for key in set(keys):
                if key not in self._lists:
                    todo.append(key)
        if not todo:
            return

        def fetch(key: ListKey) -> Tuple[ListKey, Optional[List[Dict[str, Any]]]]:
            res, namespace = key
            selector = None if unfiltered else self.owned_selector
            try:
                return key, self.api.list(res, namespace, label_selector=selector, metadata_only=unfiltered)
            except ApiError as exc:
                if exc.status in STORAGE_NOT_READY:
                    return key, None  # e.g. a CRD just established: reads fall back to GET
                raise

        for key, items in pool.map(fetch, todo):
            if items is None:
                continue
            with self._lock:
                self._lists[key] = {str(item["metadata"]["name"]): item for item in items}
                self._complete[key] = unfiltered

    def get(
        self, res: Optional[ResourceInfo], namespace: str, name: str, owned_only: bool = False
    ) -> Optional[Dict[str, Any]]:
        """The live object, or None when absent (unknown types count as absent).

        ``owned_only``: the caller treats "exists but not labelled by us" like "absent", so an object missing from
        the owner-label LIST needs no GET.
        """
        if res is None:
            return None
        key = (res, namespace if res.namespaced else "")
        with self._lock:
            listed = self._lists.get(key)
            complete = self._complete.get(key, False)
        if listed is not None:
            if name in listed:
                return listed[name]
            if complete or owned_only:
                return None
        return self.api.get(res, key[1], name)

    def forget(self, res: ResourceInfo, namespace: str, name: str) -> None:
        """Drop a cached object after writing it."""
        key = (res, namespace if res.namespaced else "")
        with self._lock:
            listed = self._lists.get(key)
            if listed is not None:
                listed.pop(name, None)
                self._complete[key] = False
