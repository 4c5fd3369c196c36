"""Charts of a chart repository and of an OCI registry on the local cluster (issue 27; chart sources, beyond the seed:
docs/dev/rules.md), in real `ansible-playbook` runs of `nubes.cloud.component` with `helm: {chart_ref, chart_repo_url,
chart_version, chart_digest, plain_http}` and no `source`: install, a no-op re-run, upgrade to a new version and
`state: absent`, each checked on the apiserver, and each change first run with `--check --diff`, which predicts it and
writes nothing (the resourceVersions of the namespace's objects, the component's record included, stay as they were).
The charts (`tests/charts/portal` with its dependency `tests/charts/greeter`) are packaged at test time and served
by a chart repository on 127.0.0.1 and the local OCI registry (`tests/charts/published.py`).

An unreachable repository, a missing version and a digest mismatch each fail the task before anything is written:
the component's namespace is never created and the chart cache keeps no entry.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, Dict, List

import pytest

from tests.charts.published import GREETER_VERSION, PublishedCharts
from tests.cluster.fixtures import unique_name
from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

ZERO_DIGEST = "sha256:" + "0" * 64


def _portal(namespace: str, helm_binary: str, chart: Dict[str, Any], **options: Any) -> Dict[str, Any]:
    """A task installing the portal chart named by ``chart`` (no source)."""
    return component(namespace, "portal", helm={"helm_binary": helm_binary, **chart}, **options)


def _repo(charts: PublishedCharts, version: str, **extra: Any) -> Dict[str, Any]:
    return {"chart_ref": "portal", "chart_repo_url": charts.repo_url, "chart_version": version, **extra}


def _oci(charts: PublishedCharts, version: str, **extra: Any) -> Dict[str, Any]:
    return {"chart_ref": f"{charts.oci}/portal", "chart_version": version, "plain_http": True, **extra}


def _chart_objects(kubectl, namespace: str) -> List[str]:
    """The ConfigMaps and Services of the namespace, but the one every namespace has."""
    items = kubectl.json("get", "configmaps,services", "-n", namespace)["items"]
    return sorted(
        f"{obj['kind']} {obj['metadata']['name']}" for obj in items if obj["metadata"]["name"] != "kube-root-ca.crt"
    )


def _data(kubectl, namespace: str, name: str) -> Dict[str, str]:
    return kubectl.json("get", "configmap", name, "-n", namespace)["data"]


def _versions(kubectl, namespace: str) -> Dict[str, str]:
    """The resourceVersion of every ConfigMap and Service of the namespace, the component's record included: equal
    before and after a run when the run wrote nothing to the apiserver."""
    items = kubectl.json("get", "configmaps,services", "-n", namespace)["items"]
    return {f"{obj['kind']} {obj['metadata']['name']}": obj["metadata"]["resourceVersion"] for obj in items}


def _assert_planned_removal(planned: Dict[str, Any], namespace: str, version: str) -> None:
    """`--check --diff` of `state: absent`: the chart's objects (the dependency's too) are planned for removal and
    the diff shows each as it is now, and gone after."""
    assert not planned.get("failed"), planned.get("msg")
    assert planned["changed"] is True
    chart = {f"ConfigMap {namespace}/portal-settings", f"ConfigMap {namespace}/portal-greeter"}
    chart.add(f"Service {namespace}/portal-web")
    assert chart <= set(planned["plan"]["prune"])
    settings = f"ConfigMap {namespace}/portal-settings"
    assert planned["diff"]["before"][settings]["data"]["chartVersion"] == version
    assert planned["diff"]["after"][settings] is None


def _free_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


INSTALLED = [
    "ConfigMap cloud.nubes.component.portal",
    "ConfigMap portal-greeter",
    "ConfigMap portal-settings",
    "Service portal-web",
]


def test_repository_chart_check_install_upgrade_and_uninstall(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, published_charts: PublishedCharts, tmp_path: Path
) -> None:
    """issue 27 (chart sources, beyond the seed: docs/dev/rules.md; C8): a chart of a chart repository, pinned by
    version and digest. --check --diff plans the chart's and its dependency's objects and writes nothing; the install
    uses the chart the check run cached; a re-run writes nothing; --check --diff of the upgrade shows the new version
    and writes nothing; the upgrade updates the objects in place; --check --diff of `state: absent` plans the removal
    of every object of the inventory and writes nothing; `state: absent` removes them, neither asking the
    repository."""
    ns, charts = kube_namespace, published_charts
    env = {"NUBES_CHART_CACHE": str(tmp_path / "chart-cache")}
    digest = charts.digest("portal-1.0.0")
    install = _portal(ns, helm_binary, _repo(charts, "1.0.0", chart_digest=digest))

    planned = ansible.run([install], check=True, diff=True, extra_env=env)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["chart"] == {
        "ref": "portal",
        "repo_url": charts.repo_url,
        "version": "1.0.0",
        "digest": digest,
        "cached": False,
    }
    assert {f"ConfigMap {ns}/portal-settings", f"ConfigMap {ns}/portal-greeter", f"Service {ns}/portal-web"} <= set(
        planned["plan"]["create"]
    )
    assert planned["diff"]["after"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.0.0"
    assert _chart_objects(kubectl, ns) == []

    run = ansible.run([install, install], extra_env=env)
    first, second = run[0], run[1]
    assert not first.get("failed"), first.get("msg")
    assert first["status"]["state"] == "Ready" and first["chart"]["cached"] is True
    assert (bool(second.get("failed")), second["changed"]) == (False, False), second.get("msg")
    assert _chart_objects(kubectl, ns) == INSTALLED
    assert _data(kubectl, ns, "portal-settings") == {"chartVersion": "1.0.0", "message": "welcome"}
    assert _data(kubectl, ns, "portal-greeter") == {"greeting": "hello", "chart": f"greeter-{GREETER_VERSION}"}
    uid = kubectl.json("get", "configmap", "portal-settings", "-n", ns)["metadata"]["uid"]

    upgrade = _portal(ns, helm_binary, _repo(charts, "1.1.0"))
    planned = ansible.run([upgrade], check=True, diff=True, extra_env=env)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["changed"] and planned["chart"]["version"] == "1.1.0"
    assert planned["diff"]["before"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.0.0"
    assert planned["diff"]["after"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.1.0"
    assert _data(kubectl, ns, "portal-settings")["chartVersion"] == "1.0.0"

    upgraded = ansible.run([upgrade], extra_env=env)[0]
    assert not upgraded.get("failed"), upgraded.get("msg")
    assert upgraded["changed"] and upgraded["chart"]["digest"] == charts.digest("portal-1.1.0")
    settings = kubectl.json("get", "configmap", "portal-settings", "-n", ns)
    assert settings["data"]["chartVersion"] == "1.1.0" and settings["metadata"]["uid"] == uid
    assert _chart_objects(kubectl, ns) == INSTALLED

    asked = len(charts.repository.requests)
    removal = _portal(ns, helm_binary, _repo(charts, "1.1.0"), state="absent")
    live = _versions(kubectl, ns)
    _assert_planned_removal(ansible.run([removal], check=True, diff=True, extra_env=env)[0], ns, "1.1.0")
    assert _versions(kubectl, ns) == live  # the check run wrote nothing, the record included

    removed = ansible.run([removal], extra_env=env)[0]
    assert not removed.get("failed"), removed.get("msg")
    assert removed["changed"] and "chart" not in removed
    assert _chart_objects(kubectl, ns) == []
    assert charts.repository.requests[asked:] == []


def test_oci_chart_check_install_upgrade_and_uninstall(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, published_charts: PublishedCharts, tmp_path: Path
) -> None:
    """issue 27 (chart sources, beyond the seed: docs/dev/rules.md; C8): a chart of an OCI registry (plain HTTP,
    127.0.0.1), as a full oci:// reference and then as Flux's HelmRepository of type oci (chart_repo_url oci://... +
    the chart's name). Each step is first run with --check --diff, which predicts it and writes nothing: the install
    carries the dependency's objects, the upgrade changes them in place, `state: absent` removes them."""
    ns, charts = kube_namespace, published_charts
    env = {"NUBES_CHART_CACHE": str(tmp_path / "chart-cache")}
    install = _portal(ns, helm_binary, _oci(charts, "1.0.0"))

    planned = ansible.run([install], check=True, diff=True, extra_env=env)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["chart"]["ref"] == f"{charts.oci}/portal"
    assert planned["chart"]["digest"] == charts.digest("portal-1.0.0")
    assert planned["chart"]["manifest_digest"].startswith("sha256:")
    assert f"ConfigMap {ns}/portal-greeter" in planned["plan"]["create"]
    assert planned["diff"]["after"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.0.0"
    assert _chart_objects(kubectl, ns) == []

    installed = ansible.run([install], extra_env=env)[0]
    assert not installed.get("failed"), installed.get("msg")
    assert installed["status"]["state"] == "Ready"
    assert _chart_objects(kubectl, ns) == INSTALLED
    assert _data(kubectl, ns, "portal-greeter")["chart"] == f"greeter-{GREETER_VERSION}"

    flux_form = {"chart_ref": "portal", "chart_repo_url": charts.oci, "chart_version": "1.1.0", "plain_http": True}
    upgrade = _portal(ns, helm_binary, flux_form)
    live = _versions(kubectl, ns)
    planned = ansible.run([upgrade], check=True, diff=True, extra_env=env)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["changed"] and planned["chart"]["ref"] == f"{charts.oci}/portal"
    assert planned["chart"]["version"] == "1.1.0" and planned["chart"]["digest"] == charts.digest("portal-1.1.0")
    assert planned["diff"]["before"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.0.0"
    assert planned["diff"]["after"][f"ConfigMap {ns}/portal-settings"]["data"]["chartVersion"] == "1.1.0"
    assert _versions(kubectl, ns) == live  # the check run wrote nothing

    upgraded = ansible.run([upgrade], extra_env=env)[0]
    assert not upgraded.get("failed"), upgraded.get("msg")
    assert upgraded["changed"] and upgraded["chart"]["ref"] == f"{charts.oci}/portal"
    assert _data(kubectl, ns, "portal-settings")["chartVersion"] == "1.1.0"

    removal = _portal(ns, helm_binary, flux_form, state="absent")
    live = _versions(kubectl, ns)
    _assert_planned_removal(ansible.run([removal], check=True, diff=True, extra_env=env)[0], ns, "1.1.0")
    assert _versions(kubectl, ns) == live  # the check run wrote nothing, the record included

    removed = ansible.run([removal], extra_env=env)[0]
    assert not removed.get("failed"), removed.get("msg")
    assert removed["changed"] and _chart_objects(kubectl, ns) == []


FAILURES = {
    "unreachable": "cannot be reached",
    "missing-version": "has no chart portal at version 9.9.9",
    "digest-mismatch": f"helm.chart_digest is {ZERO_DIGEST}, but the chart archive's digest is sha256:",
}


def _failing_chart(charts: PublishedCharts, where: str, failure: str) -> Dict[str, Any]:
    version = "9.9.9" if failure == "missing-version" else "1.0.0"
    extra = {"chart_digest": ZERO_DIGEST} if failure == "digest-mismatch" else {}
    if failure == "unreachable":
        dead = f"127.0.0.1:{_free_port()}"
        if where == "oci":
            return {"chart_ref": f"oci://{dead}/charts/portal", "chart_version": version, "plain_http": True}
        return {"chart_ref": "portal", "chart_repo_url": f"http://{dead}", "chart_version": version}
    return _oci(charts, version, **extra) if where == "oci" else _repo(charts, version, **extra)


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("where", ["repository", "oci"])
def test_pull_failures_end_the_task_before_any_write(
    ansible: Ansible,
    kubectl,
    helm_binary: str,
    published_charts: PublishedCharts,
    tmp_path: Path,
    where: str,
    failure: str,
) -> None:
    """issue 27 (chart sources, beyond the seed: docs/dev/rules.md; C8): an unreachable repository (or registry), a
    missing version and a digest mismatch each fail the task with a message naming the chart and what to check,
    before the module runs: the component's namespace is never created (so no object and no record, C8), and the
    chart cache keeps no entry of the chart."""
    namespace = unique_name("t")
    cache = tmp_path / "chart-cache"
    chart = _failing_chart(published_charts, where, failure)
    try:
        result = ansible.run([_portal(namespace, helm_binary, chart)], extra_env={"NUBES_CHART_CACHE": str(cache)})[0]
        assert result.get("failed"), result
        assert FAILURES[failure] in result["msg"], result["msg"]
        assert result["msg"].startswith(("cannot pull chart", "digest mismatch for chart"))
        assert "Nothing was applied" in result["msg"]
        found = kubectl("get", "namespace", namespace, "-o", "json", check=False)
        assert found.returncode != 0, f"namespace {namespace} was created: {json.loads(found.stdout)['status']}"
        left = [path for path in cache.rglob("*") if path.is_file()] if cache.exists() else []
        assert left == [], f"the chart cache kept {left}"
    finally:
        kubectl("delete", "namespace", namespace, "--wait=false", "--ignore-not-found", check=False)
