# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names shared by the engine: phases, statuses, policy values, annotation suffixes (reference 3.2, 4)."""

from __future__ import annotations

DEFAULT_PREFIX = "component.nubes.cloud"

# Inventory item phases (reference 3.2), exact spelling.
PHASE_SCHEDULED_FOR_APPLICATION = "ScheduledForApplication"
PHASE_CREATING = "Creating"
PHASE_UPDATING = "Updating"
PHASE_READY = "Ready"
PHASE_SCHEDULED_FOR_COMPLETION = "ScheduledForCompletion"
PHASE_COMPLETING = "Completing"
PHASE_COMPLETED = "Completed"
PHASE_SCHEDULED_FOR_DELETION = "ScheduledForDeletion"
PHASE_DELETING = "Deleting"

# kstatus strings (reference 3.2).
STATUS_IN_PROGRESS = "InProgress"
STATUS_CURRENT = "Current"
STATUS_FAILED = "Failed"
STATUS_TERMINATING = "Terminating"
STATUS_NOT_FOUND = "NotFound"
STATUS_UNKNOWN = "Unknown"

# Policy values as stored in the inventory (the Go constants of component-operator-runtime).
ADOPTION_NEVER = "Never"
ADOPTION_IF_UNOWNED = "IfUnowned"
ADOPTION_ALWAYS = "Always"
ADOPTION_POLICIES = (ADOPTION_NEVER, ADOPTION_IF_UNOWNED, ADOPTION_ALWAYS)

RECONCILE_ON_OBJECT_CHANGE = "OnObjectChange"
RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE = "OnObjectOrComponentChange"
RECONCILE_ONCE = "Once"
RECONCILE_POLICIES = (RECONCILE_ON_OBJECT_CHANGE, RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE, RECONCILE_ONCE)

UPDATE_RECREATE = "Recreate"
UPDATE_REPLACE = "Replace"
UPDATE_SSA_MERGE = "SsaMerge"
UPDATE_SSA_OVERRIDE = "SsaOverride"
UPDATE_POLICIES = (UPDATE_RECREATE, UPDATE_REPLACE, UPDATE_SSA_MERGE, UPDATE_SSA_OVERRIDE)

DELETE_DELETE = "Delete"
DELETE_ORPHAN = "Orphan"
DELETE_ORPHAN_ON_APPLY = "OrphanOnApply"
DELETE_ORPHAN_ON_DELETE = "OrphanOnDelete"
DELETE_POLICIES = (DELETE_DELETE, DELETE_ORPHAN, DELETE_ORPHAN_ON_APPLY, DELETE_ORPHAN_ON_DELETE)

MISSING_NAMESPACES_CREATE = "Create"
MISSING_NAMESPACES_DO_NOT_CREATE = "DoNotCreate"
MISSING_NAMESPACES_POLICIES = (MISSING_NAMESPACES_CREATE, MISSING_NAMESPACES_DO_NOT_CREATE)

# Annotation suffixes (key = "<prefix>/<suffix>"), reference section 4.
ANN_ADOPTION_POLICY = "adoption-policy"
ANN_RECONCILE_POLICY = "reconcile-policy"
ANN_UPDATE_POLICY = "update-policy"
ANN_DELETE_POLICY = "delete-policy"
ANN_APPLY_ORDER = "apply-order"
ANN_PURGE_ORDER = "purge-order"
ANN_DELETE_ORDER = "delete-order"
ANN_REAPPLY_INTERVAL = "reapply-interval"
ANN_STATUS_HINT = "status-hint"
ANN_DRIFT_IGNORE_PATHS = "drift-ignore-paths"  # issue 25: comma-separated JSON pointers never reverted
ANN_DRIFT_IGNORE_MANAGERS = "drift-ignore-managers"  # issue 25: field managers whose fields are never reverted
# Engine markers.
MARK_OWNER_ID = "owner-id"
MARK_DIGEST = "digest"
MARK_CREATED_BY = "created-by"  # issue 25: label of a namespace the missing-namespaces policy created
FINALIZER_SUFFIX = "finalizer"

KNOWN_ANNOTATION_SUFFIXES = (
    ANN_ADOPTION_POLICY,
    ANN_RECONCILE_POLICY,
    ANN_UPDATE_POLICY,
    ANN_DELETE_POLICY,
    ANN_APPLY_ORDER,
    ANN_PURGE_ORDER,
    ANN_DELETE_ORDER,
    ANN_REAPPLY_INTERVAL,
    ANN_STATUS_HINT,
    ANN_DRIFT_IGNORE_PATHS,
    ANN_DRIFT_IGNORE_MANAGERS,
    MARK_OWNER_ID,
    MARK_DIGEST,
)

ORDER_MIN = -32768
ORDER_MAX = 32767
PURGE_ORDER_UNSET = 32768  # internal value of "no purge order"

ONCE_DIGEST = "__once__"
DEFAULT_REAPPLY_INTERVAL_SECONDS = 3600.0
