"""A real-shaped operator install set (tests/integration/component/manifest_sets.py, the ~60-object "delivery"
bundle: three CRDs, one over 256 KiB, RBAC, Deployments, a webhook, a ConfigMapList, custom resources; a kustomize
overlay of ``../base``): `nubes.cloud.component` against kubectl on the same bundle (issue 19).

Per round and tool, a fresh namespace and CRD group (the set is cluster-wide through its CRDs), the set applied
once, then measured: the no-op re-apply (`nubes.cloud.component` task; `kubectl apply --server-side -k`) and the
check with diff (`nubes.cloud.component` with `check_mode: true` and `diff: true`; `kubectl diff --server-side
-k`, which exits 0 when nothing would change). Both sides build the overlay with the same kubectl binary: the
component's action plugin runs `kubectl kustomize` from PATH, which the bench points at the kubectl under test.
The component runs as a module (`NUBES_EXECUTION=module`, the row of issue 19) and in the controller's process (the
default for a local target, issue 26), each on its own copy of the set."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from benchlib import BIN, Playbooks, ensure_repo_on_path, local_play, summary

SHAPE = "delivery"
PHASES = ("no-op", "check+diff")
# NUBES_EXECUTION of the component's tools: issue 19's row ran it as a module, issue 26's in the controller's process
COMPONENTS = {"component": "module", "component (in-process)": ""}


def write_set(root: Path) -> Dict[str, Any]:
    """A fresh copy of the set (namespace, CRD group) under ``root``; returns where it is."""
    ensure_repo_on_path()
    from tests.integration.component import manifest_sets

    namespace = f"{SHAPE}-{uuid.uuid4().hex[:6]}"
    group = f"s{uuid.uuid4().hex[:6]}.sets.nubes.bench"
    overlay = manifest_sets.write(root / namespace, SHAPE, namespace, group)
    return {"namespace": namespace, "group": group, "overlay": overlay}


def kubectl_run(kubectl: str, kubeconfig: str, *args: str, ok: tuple = (0,)) -> float:
    """Wall seconds of one kubectl process; fails on an exit code outside ``ok``."""
    start = time.perf_counter()
    proc = subprocess.run(
        [kubectl, "--kubeconfig", kubeconfig, *args], capture_output=True, text=True, check=False, timeout=900
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in ok:
        raise RuntimeError(f"{kubectl} {' '.join(args[:3])} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return seconds


def kubectl_install(kubectl: str, kubeconfig: str, bundle: Dict[str, Any]) -> None:
    """kubectl apply --server-side -k, twice: the custom resources fail the first time, before their CRDs exist."""
    overlay = str(bundle["overlay"])
    kubectl_run(kubectl, kubeconfig, "create", "namespace", bundle["namespace"])
    kubectl_run(kubectl, kubeconfig, "apply", "--server-side", "-k", overlay, ok=(0, 1))
    kubectl_run(
        kubectl, kubeconfig, "wait", "--for=condition=Established", "crd", "-l",
        f"app.kubernetes.io/part-of={SHAPE}", "--timeout=120s",
    )  # fmt: skip
    kubectl_run(kubectl, kubeconfig, "apply", "--server-side", "-k", overlay)


def kubectl_phases(kubectl: str, kubeconfig: str, bundle: Dict[str, Any]) -> Dict[str, float]:
    overlay = str(bundle["overlay"])
    return {
        "no-op": kubectl_run(kubectl, kubeconfig, "apply", "--server-side", "-k", overlay),
        "check+diff": kubectl_run(kubectl, kubeconfig, "diff", "--server-side", "-k", overlay),
    }


def kubectl_remove(kubectl: str, kubeconfig: str, bundle: Dict[str, Any]) -> None:
    subprocess.run(
        [kubectl, "--kubeconfig", kubeconfig, "delete", "-k", str(bundle["overlay"]), "--wait=false"],
        capture_output=True,
        check=False,
        timeout=600,
    )


class Component:
    """The bundle through `nubes.cloud.component` tasks (task time from the bench callback)."""

    def __init__(self, kubeconfig: str, kubectl: str, workdir: Path, execution: str) -> None:
        self.kubeconfig = kubeconfig
        workdir.mkdir(parents=True, exist_ok=True)
        self.playbooks = Playbooks(workdir=workdir)
        # the action plugin builds the overlay with `kubectl kustomize` from PATH: the kubectl under test;
        # NUBES_EXECUTION: `module`, or "" for the default (in the controller's process, issue 26)
        self.playbooks.extra_env = {
            "PATH": f"{BIN}{os.pathsep}{Path(kubectl).parent}{os.pathsep}{os.environ['PATH']}",
            "NUBES_EXECUTION": execution,
        }

    def task(self, bundle: Dict[str, Any], **extra: Any) -> Dict[str, Any]:
        options = {
            "name": SHAPE,
            "namespace": bundle["namespace"],
            "source": str(bundle["overlay"]),
            "kubeconfig": self.kubeconfig,
            "timeout": 600,
        }
        options.update(extra)
        return {"name": SHAPE, "nubes.cloud.component": options}

    def run(self, task: Dict[str, Any]) -> float:
        record = self.playbooks.run([local_play([task])]).tasks[0]
        if record.status != "ok":
            raise RuntimeError(f"component task {record.status}: {record.msg}")
        return record.seconds

    def install(self, bundle: Dict[str, Any]) -> None:
        self.run(self.task(bundle))

    def phases(self, bundle: Dict[str, Any]) -> Dict[str, float]:
        no_op = self.run(self.task(bundle))
        check = self.run(dict(self.task(bundle), check_mode=True, diff=True))
        return {"no-op": no_op, "check+diff": check}

    def remove(self, bundle: Dict[str, Any]) -> None:
        self.run(self.task(bundle, state="absent"))


def measure(kubeconfig: str, fair_kubectl: str, image_kubectl: str, rounds: int, workdir: Path) -> Dict[str, Any]:
    """Rounds of: the component as a module and in the controller's process (issue 26), the fair kubectl (same
    bundle, each its own copy); the image's kubectl once."""
    components = {
        tool: Component(kubeconfig, fair_kubectl, workdir / f"component-{execution or 'auto'}", execution)
        for tool, execution in COMPONENTS.items()
    }
    raw: Dict[str, Dict[str, List[float]]] = {}
    ratios: Dict[str, List[float]] = {}
    tools: List[Tuple[str, Optional[str]]] = [*((tool, None) for tool in COMPONENTS), ("kubectl", fair_kubectl)]
    for index in range(rounds):
        figures: Dict[str, Dict[str, float]] = {}
        for tool, kubectl in tools + ([("kubectl (image)", image_kubectl)] if index == 0 and image_kubectl else []):
            print(f"component: operator set ({SHAPE}), round {index + 1}/{rounds}, {tool}", flush=True)
            bundle = write_set(workdir / "sets")
            if kubectl is None:
                component = components[tool]
                component.install(bundle)
                figures[tool] = component.phases(bundle)
                component.remove(bundle)
            else:
                kubectl_install(kubectl, kubeconfig, bundle)
                figures[tool] = kubectl_phases(kubectl, kubeconfig, bundle)
                kubectl_remove(kubectl, kubeconfig, bundle)
            for phase, seconds in figures[tool].items():
                raw.setdefault(tool, {}).setdefault(phase, []).append(seconds)
        for phase in PHASES:
            for tool in COMPONENTS:
                ratios.setdefault(f"{tool}/kubectl {phase}", []).append(
                    figures[tool][phase] / figures["kubectl"][phase]
                )
    return {
        "shape": SHAPE,
        "objects": count_objects(),
        "tools": {tool: {phase: summary(v, 2) for phase, v in phases.items()} for tool, phases in raw.items()},
        "ratios": {key: summary(values, 2) for key, values in ratios.items()},
    }


def count_objects() -> int:
    ensure_repo_on_path()
    from tests.integration.component import manifest_sets

    return manifest_sets.count_objects(manifest_sets.objects(SHAPE, "ns", "g.example"))
