"""A modifiable map-fixed param's create-only sub-keys (issue 23, P41, P23): the comparison for modify leaves them
out, a set live value that differs is a key mismatch, an unset live one is a warning, never a write."""

from __future__ import annotations

import json
from typing import Any, Dict

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ParamSpec, load_param
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import (
    create_only_subs,
    create_only_subs_unset,
    differing,
    without_create_only_subs,
)

UID_A = "11111111-2222-3333-4444-555555555555"
UID_B = "66666666-2222-3333-4444-555555555555"


def sub(code: str, option: str, operations: Dict[str, int], **extra: Any) -> Dict[str, Any]:
    base: Dict[str, Any] = {"code": code, "option": option, "type": "string", "operations": operations}
    return {**base, **extra}


TLS: ParamSpec = load_param(
    {
        "code": "tlsSettings",
        "option": "tls_settings",
        "type": "map-fixed",
        "operations": {"create": 1002, "modify": 1003},
        "sub_params": [
            sub("type", "type", {"create": 1002, "modify": 1003}, default="off"),
            sub("s3BackupUid", "s3_backup_uid", {"create": 1002}, ref_service_id=12, immutable=True),
        ],
    }
)


def test_the_sub_params_modify_does_not_take_are_create_only() -> None:
    """Issue 23: the spec's per-sub-param operations say which sub-keys a modify cannot send."""
    assert [s.code for s in create_only_subs(TLS)] == ["s3BackupUid"]


def test_a_create_only_sub_key_the_modify_dropped_is_no_difference() -> None:
    """Issue 23 (P41): the live object lacks s3BackupUid (a modify replaced it): no modify, only a warning."""
    desired = {"tlsSettings": f'{{"type":"self-signed","s3BackupUid":"{UID_A}"}}'}
    live = {"tlsSettings": '{"type":"self-signed"}'}
    assert differing([TLS], desired, live, immutable=False) == []
    assert differing([TLS], desired, live, immutable=True) == []
    (warning,) = create_only_subs_unset([TLS], desired, live)
    assert "tls_settings.s3_backup_uid" in warning and "create only" in warning and "resource_name" in warning


def test_a_modifiable_sub_key_still_differs() -> None:
    desired = {"tlsSettings": f'{{"type":"external","s3BackupUid":"{UID_A}"}}'}
    live = {"tlsSettings": f'{{"type":"self-signed","s3BackupUid":"{UID_A.upper()}"}}'}
    assert differing([TLS], desired, live, immutable=False) == ["tlsSettings"]
    assert differing([TLS], desired, live, immutable=True) == []
    assert create_only_subs_unset([TLS], desired, live) == []


def test_a_set_create_only_sub_key_that_differs_is_a_key_mismatch() -> None:
    """P23 for a sub-key (issue 23): refused like a top-level create-only param, named by code and option."""
    desired = {"tlsSettings": f'{{"type":"self-signed","s3BackupUid":"{UID_B}"}}'}
    live = {"tlsSettings": f'{{"type":"self-signed","s3BackupUid":"{UID_A}"}}'}
    assert differing([TLS], desired, live, immutable=False) == []
    assert differing([TLS], desired, live, immutable=True) == ["tlsSettings.s3BackupUid (tls_settings.s3_backup_uid)"]


def test_the_diff_of_a_modify_shows_the_create_only_sub_key_going() -> None:
    """Issue 23: a modify drops the create-only sub-key (P41), so what it sends, as the diff shows it, lacks it."""
    sent = without_create_only_subs([TLS], {"tlsSettings": f'{{"type":"external","s3BackupUid":"{UID_A}"}}'})
    assert json.loads(str(sent["tlsSettings"])) == {"type": "external"}
