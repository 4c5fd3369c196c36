# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component task: the module's options, validated (``plugins/modules/component.py`` builds it), and the
component digest over everything that shapes its objects."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import ConnectionOptions
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.constants import DEFAULT_PREFIX
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.digest import component_digest
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_ENABLED

DEFAULT_REAPPLY_INTERVAL_SECONDS = 3600.0


@dataclass
class ComponentTask:
    """The module's options, validated."""

    name: str
    namespace: str
    state: str = "present"
    spec: Dict[str, Any] = field(default_factory=dict)
    files: Optional[Dict[str, str]] = None
    source_kind: str = "templates"
    definitions: Any = None
    placement_namespace: str = ""
    placement_name: str = ""
    connection: ConnectionOptions = field(default_factory=ConnectionOptions)
    suspend: bool = False
    policies: Dict[str, str] = field(default_factory=dict)
    additional_managed_types: List[Dict[str, str]] = field(default_factory=list)
    health_rules: List[Dict[str, Any]] = field(default_factory=list)
    reclaim_field_managers: Optional[List[str]] = None
    timeout: float = 600.0
    reapply_interval: float = DEFAULT_REAPPLY_INTERVAL_SECONDS
    drift_mode: str = MODE_ENABLED  # issue 25: enabled, warn, disabled
    drift_ignore: List[Dict[str, Any]] = field(default_factory=list)
    wait: bool = True
    annotation_prefix: str = DEFAULT_PREFIX
    check_mode: bool = False
    diff: bool = False
    verbosity: int = 0
    run_command: Optional[CommandRunner] = None

    @property
    def deploy_namespace(self) -> str:
        """C10: the placement namespace, else the component's."""
        return self.placement_namespace or self.namespace

    @property
    def deploy_name(self) -> str:
        """C10: the placement name, else the component's."""
        return self.placement_name or self.name

    def digest(self) -> str:
        """Component digest over everything that shapes the objects (reference 5.1)."""
        extra = {
            "templates": hashlib.sha256(json.dumps(self.files or {}, sort_keys=True).encode()).hexdigest(),
            "source_kind": self.source_kind if self.files is not None else "",
            "definitions": self.definitions,
            "placement": [self.deploy_namespace, self.deploy_name],
            "policies": self.policies,
            "types": self.additional_managed_types,
            "prefix": self.annotation_prefix,
        }
        return component_digest(self.spec, extra)
