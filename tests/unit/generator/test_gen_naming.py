"""Option naming: proper snake_case and collision renames (issue 5, P31 schema/params only)."""

from __future__ import annotations

import pytest

from generator.naming import COMMON_OPTIONS, instance_reserved, option_name, snake_case, subresource_reserved


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("resourceCPU", "resource_cpu"),
        ("allowNoSSL", "allow_no_ssl"),
        ("ext_BACKUP_SCHEDULE", "ext_backup_schedule"),
        ("ext_BACKUP_NUM_TO_RETAIN", "ext_backup_num_to_retain"),
        ("s3Uid", "s3_uid"),
        ("s3UserUid", "s3_user_uid"),
        ("durationCA", "duration_ca"),
        ("needExternalAddressMaster", "need_external_address_master"),
        ("recordTTL", "record_ttl"),
        ("IPAddress", "ip_address"),
        ("displayName", "display_name"),
        ("vc-vm.v3", "vc_vm_v3"),
        ("9lives", "p_9lives"),
    ],
)
def test_snake_case(code: str, expected: str) -> None:
    """API codes become proper snake_case, not the old provider's resource_c_p_u."""
    assert snake_case(code) == expected


def test_collision_with_common_or_instance_option_gets_suffix() -> None:
    """A param named like a common/lifecycle option is renamed with `_param`."""
    assert option_name("state", instance_reserved(), set()) == "state_param"
    assert option_name("resourceName", instance_reserved(), set()) == "resource_name_param"
    assert option_name("wait", instance_reserved(), set()) == "wait_param"
    assert option_name("parentInstanceUid", subresource_reserved(), set()) == "parent_instance_uid_param"
    assert all(option_name(o, instance_reserved(), set()) != o for o in COMMON_OPTIONS)


def test_collision_between_params_is_resolved_deterministically() -> None:
    """Two codes with the same snake_case get distinct option names."""
    taken: set[str] = set()
    first = option_name("resourceCPU", frozenset(), taken)
    taken.add(first)
    assert (first, option_name("resource_CPU", frozenset(), taken)) == ("resource_cpu", "resource_cpu_param")


def test_empty_code_is_rejected() -> None:
    """A code without letters or digits cannot become an option."""
    with pytest.raises(ValueError, match="cannot make an option name"):
        snake_case("--")
