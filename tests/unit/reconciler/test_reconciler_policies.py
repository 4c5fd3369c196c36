"""Unit tests: policy values, annotations and defaults (C15, C17)."""

from __future__ import annotations

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import policies as p
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError

PREFIX = "component.nubes.cloud"


@pytest.mark.parametrize(
    ("raw", "kebab"),
    [
        ("IfUnowned", "if-unowned"),
        ("ifUnowned", "if-unowned"),
        ("if-unowned", "if-unowned"),
        ("if_unowned", "if-unowned"),
        ("SsaOverride", "ssa-override"),
        ("OnObjectOrComponentChange", "on-object-or-component-change"),
        (" Never ", "never"),
    ],
)
def test_to_kebab(raw: str, kebab: str) -> None:
    """C15: annotation values are normalised to kebab-case."""
    assert p.to_kebab(raw) == kebab


@pytest.mark.parametrize(
    ("func", "raw", "expected"),
    [
        (p.adoption_policy, "IfUnowned", c.ADOPTION_IF_UNOWNED),
        (p.adoption_policy, "if-unowned", c.ADOPTION_IF_UNOWNED),
        (p.adoption_policy, "never", c.ADOPTION_NEVER),
        (p.adoption_policy, "Always", c.ADOPTION_ALWAYS),
        (p.adoption_policy, "", None),
        (p.reconcile_policy, "once", c.RECONCILE_ONCE),
        (p.reconcile_policy, "on-object-change", c.RECONCILE_ON_OBJECT_CHANGE),
        (p.reconcile_policy, "onObjectOrComponentChange", c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE),
        (p.update_policy, "recreate", c.UPDATE_RECREATE),
        (p.update_policy, "Replace", c.UPDATE_REPLACE),
        (p.update_policy, "ssa-merge", c.UPDATE_SSA_MERGE),
        (p.update_policy, "SsaOverride", c.UPDATE_SSA_OVERRIDE),
        (p.update_policy, "default", None),
        (p.delete_policy, "delete", c.DELETE_DELETE),
        (p.delete_policy, "orphan", c.DELETE_ORPHAN),
        (p.delete_policy, "OrphanOnApply", c.DELETE_ORPHAN_ON_APPLY),
        (p.delete_policy, "orphan-on-delete", c.DELETE_ORPHAN_ON_DELETE),
        (p.delete_policy, "Default", None),
        (p.missing_namespaces_policy, "DoNotCreate", c.MISSING_NAMESPACES_DO_NOT_CREATE),
        (p.missing_namespaces_policy, "create", c.MISSING_NAMESPACES_CREATE),
    ],
)
def test_policy_values(func, raw: str, expected) -> None:
    """C15: every spelling of section 4 maps to one canonical value; "" (and deprecated default) is the default."""
    assert func(raw) == expected


@pytest.mark.parametrize("func", [p.adoption_policy, p.reconcile_policy, p.update_policy, p.delete_policy])
def test_policy_invalid(func) -> None:
    """C15: an unknown value is an error naming the accepted values."""
    with pytest.raises(ValidationError, match="use one of"):
        func("sometimes")


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [("90s", 90.0), ("1h30m", 5400.0), ("1.5h", 5400.0), ("500ms", 0.5), ("0", 0.0), ("2h", 7200.0), ("-1m", -60.0)],
)
def test_parse_duration(raw: str, seconds: float) -> None:
    """C17: reapply-interval is a Go duration."""
    assert p.parse_duration(raw) == pytest.approx(seconds)


@pytest.mark.parametrize("raw", ["", "10", "1d", "h", "1h x"])
def test_parse_duration_invalid(raw: str) -> None:
    """C17: anything but a Go duration is rejected."""
    with pytest.raises(ValidationError):
        p.parse_duration(raw)


@pytest.mark.parametrize(("raw", "value"), [("0", 0), ("-32768", -32768), ("32767", 32767), (" 5 ", 5)])
def test_parse_order(raw: str, value: int) -> None:
    """Orders are integers in [-32768, 32767]."""
    assert p.parse_order("apply-order", raw) == value


@pytest.mark.parametrize("raw", ["32768", "-32769", "1.5", "x"])
def test_parse_order_invalid(raw: str) -> None:
    """Orders out of range or not integers are rejected."""
    with pytest.raises(ValidationError):
        p.parse_order("apply-order", raw)


def test_status_hints() -> None:
    """Status hints: has-observed-generation, has-ready-condition, conditions=A;B."""
    hints = p.parse_status_hints("has-observed-generation, hasReadyCondition,conditions=Synced;Healthy")
    assert hints.has_observed_generation and hints.has_ready_condition
    assert hints.conditions == ["Synced", "Healthy"]
    with pytest.raises(ValidationError, match="invalid status hint"):
        p.parse_status_hints("bogus")


def test_object_policies_override_component_defaults() -> None:
    """C15: per-object annotations override the component defaults; "" in defaults means built-in default."""
    defaults = p.Defaults(adoption_policy="Never", update_policy="", delete_policy="orphan").normalised()
    assert defaults.update_policy == c.UPDATE_SSA_OVERRIDE
    plain = p.object_policies({}, PREFIX, defaults)
    assert (plain.adoption_policy, plain.update_policy, plain.delete_policy) == (
        c.ADOPTION_NEVER,
        c.UPDATE_SSA_OVERRIDE,
        c.DELETE_ORPHAN,
    )
    assert plain.reconcile_policy == c.RECONCILE_ON_OBJECT_CHANGE
    assert plain.purge_order == c.PURGE_ORDER_UNSET
    annotated = p.object_policies(
        {
            f"{PREFIX}/adoption-policy": "Always",
            f"{PREFIX}/update-policy": "replace",
            f"{PREFIX}/delete-policy": "OrphanOnDelete",
            f"{PREFIX}/reconcile-policy": "once",
            f"{PREFIX}/apply-order": "2",
            f"{PREFIX}/purge-order": "3",
            f"{PREFIX}/delete-order": "-1",
            f"{PREFIX}/reapply-interval": "5m",
        },
        PREFIX,
        defaults,
    )
    assert annotated.adoption_policy == c.ADOPTION_ALWAYS
    assert annotated.update_policy == c.UPDATE_REPLACE
    assert annotated.delete_policy == c.DELETE_ORPHAN_ON_DELETE
    assert annotated.reconcile_policy == c.RECONCILE_ONCE
    assert (annotated.apply_order, annotated.purge_order, annotated.delete_order) == (2, 3, -1)
    assert annotated.reapply_interval == 300.0


def test_unknown_annotation_names() -> None:
    """Typos in engine annotations are reported."""
    annotations = {f"{PREFIX}/apply-ordre": "1", f"{PREFIX}/apply-order": "1", "other.io/x": "y"}
    assert p.check_annotation_names(annotations, PREFIX) == (f"{PREFIX}/apply-ordre",)


@pytest.mark.parametrize(
    ("policy", "on_apply", "on_delete"),
    [
        (c.DELETE_DELETE, False, False),
        (c.DELETE_ORPHAN, True, True),
        (c.DELETE_ORPHAN_ON_APPLY, True, False),
        (c.DELETE_ORPHAN_ON_DELETE, False, True),
    ],
)
def test_orphan_policies(policy: str, on_apply: bool, on_delete: bool) -> None:
    """C15: orphan, orphan-on-apply, orphan-on-delete."""
    assert p.orphans_on_apply(policy) is on_apply
    assert p.orphans_on_delete(policy) is on_delete
