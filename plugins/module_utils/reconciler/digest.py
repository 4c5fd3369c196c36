# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Object and component digests: drift detection and reapply triggers (reference 5.1, 5.2, C17)."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(text: str) -> str:
    """Hex sha256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def object_hash(normalised_object: Mapping[str, Any]) -> str:
    """Hash of a normalised desired object (markers stripped, namespace defaulted, stringData folded)."""
    return sha256_hex(canonical_json(normalised_object))


def item_digest(normalised_object: Mapping[str, Any], reconcile_policy: str, component_digest: str) -> str:
    """The digest written to ``<prefix>/digest`` and kept in the inventory (reference 5.2).

    ``Once`` gives the literal ``__once__``; ``OnObjectOrComponentChange`` appends the component digest.
    """
    if reconcile_policy == c.RECONCILE_ONCE:
        return c.ONCE_DIGEST
    digest = object_hash(normalised_object)
    if reconcile_policy == c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE:
        return f"{digest}@{component_digest}"
    return digest


def component_digest(parameters: Any, extra: Any = None) -> str:
    """Digest of the component's inputs (parameters, annotations, referenced content) (reference 5.1)."""
    return sha256_hex(canonical_json([{"spec": parameters, "extra": extra}]))
