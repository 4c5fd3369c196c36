"""Unit tests: managed-fields takeover for ssa-merge and ssa-override (reference 3.3 step 12)."""

from __future__ import annotations

from typing import Any, Dict

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import (
    merge_fields,
    takeover_managed_fields,
)

R = "component.nubes.cloud"


def entry(manager: str, operation: str, fields: dict, subresource: str = "") -> dict:
    data = {
        "manager": manager,
        "operation": operation,
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }
    if subresource:
        data["subresource"] = subresource
    return data


def test_merge_fields_is_a_union() -> None:
    """fieldsV1 tries are merged key by key."""
    target: Dict[str, Any] = {"f:data": {"f:a": {}}}
    merge_fields(target, {"f:data": {"f:b": {}}, "f:metadata": {"f:labels": {}}})
    assert target == {"f:data": {"f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {}}}


def test_nothing_to_take_over() -> None:
    """Only our Apply entry and foreign managers: no patch needed."""
    fields = [entry(R, "Apply", {"f:data": {}}), entry("kube-controller-manager", "Update", {"f:status": {}})]
    assert takeover_managed_fields(fields, R, "v1", ["kubectl"]) is None


def test_override_reclaims_kubectl_and_own_updates() -> None:
    """C15: ssa-override: kubectl* managers and our own Update entries are folded into our Apply entry."""
    fields = [
        entry("kubectl", "Apply", {"f:data": {"f:extra": {}}}),
        entry("kubectl-edit", "Update", {"f:data": {"f:edited": {}}}),
        entry(R, "Update", {"f:data": {"f:old": {}}}),
        entry(R, "Apply", {"f:data": {"f:mine": {}}}),
        entry("other", "Apply", {"f:data": {"f:theirs": {}}}),
        entry("kubectl", "Update", {"f:status": {}}, subresource="status"),
    ]
    result = takeover_managed_fields(fields, R, "v1", ["kubectl"])
    assert result is not None
    managers = [(e["manager"], e["operation"], e.get("subresource", "")) for e in result]
    assert managers == [("other", "Apply", ""), ("kubectl", "Update", "status"), (R, "Apply", "")]
    assert result[-1]["fieldsV1"] == {"f:data": {"f:extra": {}, "f:edited": {}, "f:old": {}, "f:mine": {}}}


def test_merge_reclaims_only_own_updates() -> None:
    """C15: ssa-merge: only our own Update entries (e.g. after a policy change from replace) are folded."""
    fields = [entry("kubectl", "Apply", {"f:data": {"f:extra": {}}}), entry(R, "Update", {"f:data": {"f:old": {}}})]
    result = takeover_managed_fields(fields, R, "v1", [])
    assert result is not None
    assert [e["manager"] for e in result] == ["kubectl", R]
    assert result[-1]["operation"] == "Apply"
    assert result[-1]["fieldsV1"] == {"f:data": {"f:old": {}}}


def test_apply_conflicts_name_the_manager_and_the_option() -> None:
    """C15, issue 25: a server-side apply 409 gives (manager, field) pairs; the error names both and the option."""
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import (
        apply_conflicts,
        conflict_message,
    )

    body = {  # the apiserver's Status of a conflicting apply
        "reason": "Conflict",
        "details": {
            "causes": [
                {
                    "reason": "FieldManagerConflict",
                    "message": 'conflict with "flux-helper" using v1',
                    "field": ".data.a",
                },
                {
                    "reason": "FieldManagerConflict",
                    "message": 'conflict with "flux-helper" using v1',
                    "field": ".data.b",
                },
            ]
        },
    }
    conflicts = apply_conflicts(body)
    assert conflicts == [("flux-helper", ".data.a"), ("flux-helper", ".data.b")]
    message = conflict_message("ConfigMap n/x", conflicts)
    assert "field manager 'flux-helper' holds .data.a, .data.b" in message
    assert "add 'flux-helper' (or a prefix of it) to reclaim_field_managers" in message
    assert apply_conflicts({"reason": "Conflict", "message": "the object has been modified"}) == []


def test_foreign_managers_leave_out_us_our_client_reclaimed_and_status() -> None:
    """C15, issue 25: only a manager that is not us, this collection's client or reclaimed can make an apply
    conflict; a status subresource entry never does."""
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import foreign_managers

    fields = [
        entry(R, "Apply", {}),
        entry("nubes.cloud", "Update", {}),
        entry("kubectl-edit", "Update", {}),
        entry("some-controller", "Update", {}, subresource="status"),
        entry("kube-controller-manager", "Update", {}, subresource="scale"),
        entry("ops-bot", "Update", {}),
    ]
    assert foreign_managers(fields, R, ["kubectl"]) == ["kube-controller-manager", "ops-bot"]
    assert foreign_managers(fields, R, ["kubectl", "ops-", "kube-"]) == []
