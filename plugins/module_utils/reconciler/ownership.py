# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Owner ids and the engine's marker keys (reference 3.1)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c


def owner_id(cluster_uid: str, namespace: str, name: str) -> str:
    """``<kube-system namespace UID>/<component namespace>/<component name>`` (reference 3.1, 7.1)."""
    return f"{cluster_uid}/{namespace}/{name}"


def hash_owner_id(value: str) -> str:
    """Lowercase unpadded base32 of sha256: 52 characters, a valid label value."""
    digest = hashlib.sha256(value.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii").rstrip("=").lower()


@dataclass(frozen=True)
class Markers:
    """The keys the engine writes under its prefix (default ``component.nubes.cloud``)."""

    prefix: str = c.DEFAULT_PREFIX

    @property
    def owner_label(self) -> str:
        """Label (hashed owner id) and annotation (plain owner id) key."""
        return f"{self.prefix}/{c.MARK_OWNER_ID}"

    @property
    def creator_label(self) -> str:
        """Label (hashed owner id) on a namespace the missing-namespaces policy created for the component (issue 25):
        not the owner label, so the namespace is not one of the component's objects, and another component may still
        take it into its set (adoption if-unowned)."""
        return f"{self.prefix}/{c.MARK_CREATED_BY}"

    @property
    def digest_annotation(self) -> str:
        """Annotation holding the item digest of the last write."""
        return f"{self.prefix}/{c.MARK_DIGEST}"

    @property
    def finalizer(self) -> str:
        """Finalizer put on CRDs and APIServices the engine manages."""
        return f"{self.prefix}/{c.FINALIZER_SUFFIX}"

    @property
    def field_manager(self) -> str:
        """Server-side-apply field manager (the prefix, as the reference's field owner R)."""
        return self.prefix

    def annotation(self, suffix: str) -> str:
        """Full key of a policy annotation."""
        return f"{self.prefix}/{suffix}"

    def owned_selector(self, hashed_owner_id: str) -> str:
        """Label selector for objects owned by the component."""
        return f"{self.owner_label}={hashed_owner_id}"

    def created_selector(self, hashed_owner_id: str) -> str:
        """Label selector for the namespaces the missing-namespaces policy created for the component (issue 25)."""
        return f"{self.creator_label}={hashed_owner_id}"

    def foreign_selector(self, hashed_owner_id: str) -> str:
        """Label selector for objects not owned by the component (also matches unlabelled ones)."""
        return f"{self.owner_label}!={hashed_owner_id}"
