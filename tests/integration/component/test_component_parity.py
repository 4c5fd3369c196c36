"""Issue 26, parity of nubes.cloud.component: the same flow on the module path (NUBES_EXECUTION=module) and in the
controller's process (the default for a local target: its sources handed to the module by reference) gives
identical registered results and identical apiserver state, once uids, resource versions and times are replaced
(and, for a task that waits for readiness or deletion, the number of its reads, which follows the clock).

Both runs use one namespace, one after the other: each starts from an empty namespace and ends with the component
deleted, and the apiserver state is read after every step (kubectl, not the module's result).

A second test applies a chart whose spec holds a password on both paths and greps the temporary directories for it,
while helm runs (a wrapper of the real helm) and after the run: in the controller's process nothing holds it.
"""

from __future__ import annotations

import base64
import re
import shlex
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

MODES = {"module": "module", "in_process": ""}
KINDS = "configmaps,secrets,deployments.apps,serviceaccounts"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
VOLATILE = frozenset({"uid", "resourceVersion", "creationTimestamp", "time", "status", "seconds", "elapsed"})
IN_PROCESS_MARK = "nubes.cloud: nubes.cloud.component runs in the controller's process"
MODULE_MARK = "nubes.cloud: nubes.cloud.component runs as a module: forced by NUBES_EXECUTION=module"


def stable(value: Any) -> Any:
    """`value` without what differs between two equal runs: uids, resource versions, times, object status."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, str):
        return TIME.sub("<time>", UUID.sub("<uid>", value))
    return value


def differences(left: Any, right: Any, path: str = "") -> List[str]:
    """The paths at which two results differ, with both values, so that a failure says what differs."""
    if isinstance(left, dict) and isinstance(right, dict):
        found: List[str] = []
        for key in sorted(set(left) | set(right), key=str):
            found += differences(left.get(key, "<missing>"), right.get(key, "<missing>"), f"{path}/{key}")
        return found
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [d for i, (a, b) in enumerate(zip(left, right)) for d in differences(a, b, f"{path}/{i}")]
    return [] if left == right else [f"{path}: {str(left)[:300]} != {str(right)[:300]}"]


def without_polls(result: Dict[str, Any]) -> Dict[str, Any]:
    """`result` without the reads of its `api_calls` (GET, and so the total): a task that waits reads the objects
    until they are ready (or gone), so how often follows the clock (how soon kwok runs the pods), like the times. The
    writes by method stay compared; so do the reads of the steps that do not wait."""
    calls = result.get("api_calls")
    if not isinstance(calls, dict):
        return result
    return {**result, "api_calls": {k: v for k, v in calls.items() if k not in ("GET", "total")}}


def apiserver_state(kubectl: Any, namespace: str) -> List[Dict[str, Any]]:
    items = kubectl.json("get", KINDS, "-n", namespace)["items"]
    objects = [i for i in items if i["metadata"]["name"] not in ("default", "kube-root-ca.crt")]
    return sorted((stable(i) for i in objects), key=lambda i: (i["kind"], i["metadata"]["name"]))


def run_flow(ansible: Ansible, kubectl: Any, namespace: str, mode: str) -> Dict[str, Any]:
    source = ansible.source("web")
    web = {"source": source, "source_kind": "templates"}
    steps = [  # (task, check, diff, whether the task waits for objects to become ready or to go)
        (component(namespace, "web", **web), False, False, True),
        (component(namespace, "web", **web), False, False, False),
        (component(namespace, "web", **web, spec={"replicas": 3}), True, True, False),
        (component(namespace, "web", **web, spec={"replicas": 3}), False, True, True),
        (component(namespace, "web", **web, policies={"update": "bogus"}), False, False, False),
        (component(namespace, "web", state="absent"), False, False, True),
    ]
    env = {"NUBES_EXECUTION": MODES[mode]}
    results, states, outputs = [], [], []
    for task, check, diff, waits in steps:
        run = ansible.run([task], check=check, diff=diff, extra_env=env, verbosity=3)
        results.append(without_polls(stable(run[0])) if waits else stable(run[0]))
        states.append(apiserver_state(kubectl, namespace))
        outputs.append(run.stdout)
    return {"results": results, "states": states, "output": "\n".join(outputs)}


def test_component_paths_are_identical(ansible: Ansible, kubectl: Any, kube_namespace: str) -> None:
    """Issue 26 (parity): apply, no-op, check+diff, apply with diff, a bad option and a deletion give identical
    results and identical objects in the apiserver after every step on both paths; -vvv names the path."""
    module = run_flow(ansible, kubectl, kube_namespace, "module")
    in_process = run_flow(ansible, kubectl, kube_namespace, "in_process")

    results = module["results"]
    assert [bool(r.get("failed")) for r in results] == [False, False, False, False, True, False], results
    assert results[0]["changed"] and not results[1]["changed"] and results[2]["changed"] and results[3]["changed"]
    assert module["states"][0] and module["states"][-1] == []
    assert not differences(in_process["results"], module["results"]), differences(in_process["results"], results)
    assert in_process["states"] == module["states"]
    assert module["output"].count(MODULE_MARK) == len(results) and IN_PROCESS_MARK not in module["output"]
    assert in_process["output"].count(IN_PROCESS_MARK) == len(results) and MODULE_MARK not in in_process["output"]


WATCHING_HELM = """#!/bin/sh
# A nubes.cloud test (issue 26): while helm runs, list the files of the watched directories that hold the secret,
# then run helm with the same arguments and standard input.
grep -rlF -f {secret_file} {watched} >>{found} 2>/dev/null
echo ran >>{ran}
exec {helm} "$@"
"""
CREDS_TEMPLATE = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-creds
stringData:
  password: {{ .Values.password | quote }}
"""


def files_holding(directories: List[Path], secret: str) -> List[str]:
    """The files under `directories` whose bytes contain `secret` (files that vanish meanwhile are skipped)."""
    found = []
    for directory in directories:
        for path in directory.rglob("*") if directory.is_dir() else ():
            try:
                if path.is_file() and secret.encode() in path.read_bytes():
                    found.append(str(path))
            except OSError:
                continue
    return found


def chart_with_a_secret(base: Path) -> Path:
    chart = base / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: creds\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "templates" / "creds.yaml").write_text(CREDS_TEMPLATE, encoding="utf-8")
    return chart


def watching_helm(base: Path, helm_binary: str, secret: str, watched: List[Path]) -> Path:
    """A helm that first greps `watched` for `secret` (into <base>/found), then runs the real one."""
    (base / "secret").write_text(secret + "\n", encoding="utf-8")
    script = base / "helm-watching"
    script.write_text(
        WATCHING_HELM.format(
            secret_file=shlex.quote(str(base / "secret")),
            watched=" ".join(shlex.quote(str(d)) for d in watched),
            found=shlex.quote(str(base / "found")),
            ran=shlex.quote(str(base / "ran")),
            helm=shlex.quote(helm_binary),
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def apply_a_secret_from_the_spec(
    ansible: Ansible, kubectl: Any, namespace: str, helm_binary: str, base: Path, mode: str
) -> Dict[str, Any]:
    """Apply a chart whose Secret takes its password from the spec, with ansible's local and remote tmp in `base`
    (remote files kept) and TMPDIR in a short directory of its own (ansible-core 2.21 puts a Unix socket there); which
    files held the password while helm ran and after the run."""
    with tempfile.TemporaryDirectory(prefix="nubes26-") as short:
        return _apply_a_secret(ansible, kubectl, namespace, helm_binary, base, mode, Path(short))


def _apply_a_secret(
    ansible: Ansible, kubectl: Any, namespace: str, helm_binary: str, base: Path, mode: str, tmpdir: Path
) -> Dict[str, Any]:
    secret = f"Pw-{uuid.uuid4().hex}"
    watched = [tmpdir, base / "local-tmp", base / "remote-tmp"]
    for directory in watched:
        directory.mkdir(parents=True, exist_ok=True)
    watched.append(Path.home() / ".ansible" / "tmp")  # ansible's default local tmp (unused here: it stays clean)
    helm = watching_helm(base, helm_binary, secret, watched)
    name = f"creds-{mode.replace('_', '-')}"
    task = component(namespace, name, source=str(chart_with_a_secret(base)), helm={"helm_binary": str(helm)})
    task["nubes.cloud.component"]["spec"] = {"password": secret}
    env = {
        "NUBES_EXECUTION": MODES[mode],
        "TMPDIR": str(watched[0]),
        "ANSIBLE_LOCAL_TEMP": str(watched[1]),
        "ANSIBLE_REMOTE_TEMP": str(watched[2]),
        "ANSIBLE_KEEP_REMOTE_FILES": "1",
        "ANSIBLE_PIPELINING": "0",
    }
    run = ansible.run([{**task, "no_log": True}], extra_env=env, verbosity=3)
    live = kubectl.json("get", "secret", f"{name}-creds", "-n", namespace)
    return {
        "result": run[0],
        "output": run.stdout,
        "helm ran": (base / "ran").is_file(),
        "while helm ran": (base / "found").read_text(encoding="utf-8").split() if (base / "found").exists() else [],
        "after the run": files_holding(watched, secret),
        "applied": base64.b64decode(live["data"]["password"]).decode() == secret,
    }


def test_in_process_writes_no_value_of_the_spec_to_disk(
    ansible: Ansible, kubectl: Any, kube_namespace: str, helm_binary: str, tmp_path: Path
) -> None:
    """Issue 26 (security): a chart's spec values (a password) reach helm on its standard input; in the controller's
    process no file in TMPDIR, ansible's local or remote tmp or ~/.ansible/tmp holds the password, neither while
    helm runs nor after the run (remote files kept); the apiserver's Secret has it."""
    ns = kube_namespace
    in_process = apply_a_secret_from_the_spec(ansible, kubectl, ns, helm_binary, tmp_path / "in", "in_process")
    assert not in_process["result"].get("failed") and in_process["applied"] and in_process["helm ran"]
    assert IN_PROCESS_MARK in in_process["output"]
    assert in_process["while helm ran"] == [] and in_process["after the run"] == []
