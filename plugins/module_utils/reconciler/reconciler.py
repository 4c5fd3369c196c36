# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reconciler's API: ``apply``, ``delete`` and ``is_deletion_allowed`` on an inventory, for one owner (reference
section 3; component-operator-runtime's ``pkg/reconciler``). It knows nothing of component status: the caller loops
the steps and persists the inventory between them (``component.reconcile``).

Use::

    api = connect(ConnectionOptions(kubeconfig=path))
    reconciler = Reconciler(api, owner_id(api.cluster_uid(), "team-a", "web"), namespace="team-a")
    inventory = inventory_from_list(stored)          # [] the first time
    while not reconciler.apply(inventory, objects):  # or: delete(inventory) after is_deletion_allowed()
        store(inventory_to_list(inventory)); time.sleep(backoff)

With a dry-run client (``ConnectionOptions(dry_run=True)``) one ``apply`` or ``delete`` call plans every wave with
server-side dry-run writes: check mode runs the same rules.
"""

from __future__ import annotations

import datetime
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import utc_now
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import apply_waves, delete_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext, Observer
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_ENABLED, MODES, parse_rules
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError, ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.health_rules import (
    parse_health_rules,
    rules_analyzer,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem, TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults, StatusHints


class Reconciler:
    """Apply and delete object sets owned by ``owner_id`` (``<cluster uid>/<namespace>/<name>``, reference 3.1)."""

    def __init__(
        self,
        api: KubeApi,
        owner_id: str,
        namespace: str,
        component_digest: str = "",
        prefix: str = c.DEFAULT_PREFIX,
        policies: Optional[Mapping[str, str]] = None,
        reapply_interval: Optional[float] = None,
        additional_managed_types: Sequence[Mapping[str, Any]] = (),
        observer: Optional[Observer] = None,
        clock: Callable[[], datetime.datetime] = utc_now,
        drift_mode: str = MODE_ENABLED,
        drift_ignore: Sequence[Mapping[str, Any]] = (),
        health_rules: Sequence[Mapping[str, Any]] = (),
        reclaimed_managers: Optional[Sequence[str]] = None,
    ) -> None:
        """``policies``: ``adoption``, ``update``, ``delete``, ``missing_namespaces`` ("" = the default, C15);
        ``additional_managed_types``: ``{group, version, kind}`` patterns (C16); ``drift_mode`` and
        ``drift_ignore`` (``{paths, managers, target}`` rules): live drift on every step (issue 25); ``health_rules``:
        readiness per group/kind (``health_rules.parse_health_rules``, kstatus for the others);
        ``reclaimed_managers``: prefixes of the field managers whose fields ssa-override takes over (None =
        ``kubectl``). Raises ValidationError for a mode or a rule that does not parse, before any call."""
        if drift_mode not in MODES:
            raise ValidationError(f"invalid drift detection mode {drift_mode!r}; use one of: {', '.join(MODES)}")
        chosen = dict(policies or {})
        defaults = Defaults(
            adoption_policy=chosen.get("adoption") or "",
            update_policy=chosen.get("update") or "",
            delete_policy=chosen.get("delete") or "",
            missing_namespaces_policy=chosen.get("missing_namespaces") or "",
        )
        if reapply_interval:
            defaults.reapply_interval = reapply_interval
        types = [
            TypeInfo(str(t.get("group") or ""), str(t.get("version") or "*"), str(t.get("kind") or "*"))
            for t in additional_managed_types
        ]
        self.ctx = EngineContext(
            api=api,
            namespace=namespace,
            owner_id=owner_id,
            component_digest=component_digest,
            markers=Markers(prefix),
            defaults=defaults,
            additional_managed_types=types,
            clock=clock,
            drift_mode=drift_mode,
            drift_ignore=parse_rules(drift_ignore),
            analyzer=rules_analyzer(parse_health_rules(health_rules)),
        )
        if reclaimed_managers is not None:
            self.ctx.reclaimed_managers = list(reclaimed_managers)
        if observer is not None:
            self.ctx.observer = observer

    @classmethod
    def from_context(cls, ctx: EngineContext) -> Reconciler:
        """A reconciler over an existing engine context (tests and benchmarks that tune the context)."""
        reconciler = cls(ctx.api, ctx.owner_id, ctx.namespace)
        reconciler.ctx = ctx
        return reconciler

    @property
    def api(self) -> KubeApi:
        """The client the reconciler writes with."""
        return self.ctx.api

    @property
    def markers(self) -> Markers:
        """The label, annotation, finalizer and field-manager names."""
        return self.ctx.markers

    def apply(self, inventory: List[InventoryItem], objects: Sequence[Any]) -> bool:
        """One apply step (``apply_waves.apply``); True when everything is applied, ready and pruned."""
        return apply_waves.apply(inventory, objects, self.ctx)

    def delete(self, inventory: List[InventoryItem]) -> bool:
        """One delete step (``delete_waves.delete``); True when the inventory is empty."""
        return delete_waves.delete(inventory, self.ctx)

    def is_deletion_allowed(self, inventory: List[InventoryItem]) -> Tuple[bool, str]:
        """The deletion gate (``delete_waves.is_deletion_allowed``): (allowed, why not)."""
        return delete_waves.is_deletion_allowed(inventory, self.ctx)

    def why_not_ready(self, item: InventoryItem) -> str:
        """What keeps an item from being ready, read from the live object (kstatus message)."""
        res = self.api.discovery.resource_any_version(item.group, item.kind, item.version)
        if res is None:
            return "its type is not served by the API server (yet)"
        live = self.api.get(res, item.namespace, item.name)
        if live is None:
            return "does not exist yet" if item.phase != c.PHASE_DELETING else "deleted"
        try:
            status, message = self.ctx.analyzer(live, StatusHints())
        except EngineError as exc:  # a health rule's failed check
            return str(exc)
        return f"{status}: {message}"

    def now(self) -> datetime.datetime:
        """The reconciler's clock."""
        return self.ctx.clock()


def describe_pending(inventory: Sequence[InventoryItem]) -> Dict[str, List[InventoryItem]]:
    """Not-ready items in apply order: ``blocking`` (written or checked, waiting for readiness or deletion) and
    ``waiting`` (not processed yet: behind the blocking ones in a later stage or wave)."""

    def pending(item: InventoryItem) -> bool:
        if item.phase in (c.PHASE_READY, c.PHASE_COMPLETED):
            return item.status in (c.STATUS_IN_PROGRESS, c.STATUS_FAILED, c.STATUS_TERMINATING)
        return True

    ordered = sorted((i for i in inventory if pending(i)), key=lambda i: i.applyOrder)
    return {
        "blocking": [i for i in ordered if i.phase != c.PHASE_SCHEDULED_FOR_APPLICATION],
        "waiting": [i for i in ordered if i.phase == c.PHASE_SCHEDULED_FOR_APPLICATION],
    }
