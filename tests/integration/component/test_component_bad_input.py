"""Playbook-level tests of nubes.cloud.component: bad input fails before anything is written, with a clear message."""

from __future__ import annotations

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster


def test_template_error_names_file_and_line(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C2: an undefined value in a template fails with the template's file and line; nothing is applied."""
    result = ansible.run(
        [component(kube_namespace, "broken", source=ansible.source("broken-template"), source_kind="templates")]
    )[0]
    assert result["failed"] is True
    assert "template broken.yaml.j2, line 6" in result["msg"]
    assert "not_defined_anywhere" in result["msg"]
    assert kubectl("get", "configmap", "broken-good", "-n", kube_namespace, check=False).returncode != 0


def test_template_sandbox_blocks_code(ansible: Ansible, tmp_path, kube_namespace: str) -> None:
    """C2: spec values and templates cannot reach Python internals (sandboxed Jinja2)."""
    source = tmp_path / "evil"
    source.mkdir()
    (source / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
        "  a: '{{ values.__class__.__mro__[1].__subclasses__() }}'\n",
        encoding="utf-8",
    )
    result = ansible.run([component(kube_namespace, "evil", source=str(source), source_kind="templates")])[0]
    assert result["failed"] is True
    assert "cm.yaml" in result["msg"]


def test_j2_manifest_without_a_template_suffix_is_an_error(
    ansible: Ansible, kubectl, kube_namespace: str, tmp_path
) -> None:
    """C2: without ``template_suffix`` a template keeps its name (component-operator-runtime's rule), so
    ``cm.yaml.j2`` gives no object; the task fails, names the file and ``template_suffix: .j2``, and applies
    nothing of the set (not even the plain ``other.yaml``)."""
    source = tmp_path / "j2"
    source.mkdir()
    (source / "cm.yaml.j2").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: j2-cm\n", encoding="utf-8")
    (source / "other.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: j2-other\n", encoding="utf-8"
    )
    result = ansible.run([component(kube_namespace, "j2", source=str(source), source_kind="templates")])[0]
    assert result["failed"] is True
    assert "template cm.yaml.j2" in result["msg"] and "template_suffix: .j2" in result["msg"]
    assert kubectl("get", "configmap", "j2-other", "-n", kube_namespace, check=False).returncode != 0


def test_unknown_policy_value_is_rejected(ansible: Ansible, kube_namespace: str) -> None:
    """C15: policy values are validated by the argument spec."""
    result = ansible.run(
        [
            component(
                kube_namespace,
                "web",
                source=ansible.source("web"),
                source_kind="templates",
                policies={"adoption": "sometimes"},
            )
        ]
    )[0]
    assert result["failed"] is True
    assert "adoption" in result["msg"] and "sometimes" in result["msg"]


def test_object_without_kind_is_rejected(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """An object without kind fails with the file and document number; nothing is applied."""
    result = ansible.run(
        [component(kube_namespace, "nokind", source=ansible.source("no-kind"), source_kind="templates")]
    )[0]
    assert result["failed"] is True
    assert "file objects.yaml, document 2" in result["msg"] and "without kind" in result["msg"]
    assert kubectl("get", "configmap", "fine", "-n", kube_namespace, check=False).returncode != 0


def test_unknown_kind_is_named(ansible: Ansible, kube_namespace: str) -> None:
    """An object of a kind the API server does not serve (and no CRD of the set defines) is named in the error."""
    definitions = [{"apiVersion": "nowhere.nubes.test/v1", "kind": "Ghost", "metadata": {"name": "boo"}}]
    result = ansible.run([component(kube_namespace, "ghost", definitions=definitions)])[0]
    assert result["failed"] is True
    assert "Ghost boo" in result["msg"] and "does not know" in result["msg"]


def test_owner_conflict_names_the_owner(ansible: Ansible, kube_namespace: str) -> None:
    """C15: an object owned by another component is not taken over (adoption if-unowned); the error names the
    object and its current owner."""
    definitions = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"}}]
    run = ansible.run(
        [
            component(kube_namespace, "first", definitions=definitions),
            component(kube_namespace, "second", definitions=definitions),
        ]
    )
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[1]["failed"] is True
    assert f"ConfigMap {kube_namespace}/shared" in run[1]["msg"]
    assert f"/{kube_namespace}/first" in run[1]["msg"]
