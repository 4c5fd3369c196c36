"""AWX / Automation Controller jobs and the state backend (issue 16), with real ansible-playbook processes run the
way AWX runs jobs: each job a fresh "pod" (its own HOME, nothing local survives), `JOB_ID` and `AWX_HOST` set as
AWX sets them, and the environment a "Nubes API" credential injects (docs/awx/nubes_credential_type.yml)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.state.awx_credential import inject
from tests.integration.state.pods import Pod, live_instances, write_calls

REALM = "s3.nubes.ru"
S3_SERVICE_ID = 12
KUBERNETES_HINT = "state_backend: kubernetes"
pytestmark = pytest.mark.slow


def awx_job(number: int) -> dict[str, str]:
    """The variables AWX's RunJob.build_env sets in every job (among others)."""
    return {"JOB_ID": str(number), "AWX_HOST": "https://awx.example.test", "INVENTORY_ID": "1"}


def s3(name: str, **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": "s3",
            "nubes.cloud.s3": {"resource_name": name, "display_name": name, "resource_realm": REALM, **extra},
        }
    ]


def api_inputs(emu: EmulatorServer, **state: str) -> dict[str, str]:
    return {"api_endpoint": emu.endpoint, "api_token": emu.token, **state}


def test_file_state_in_awx_jobs_warns_and_refuses_what_a_lost_record_decides(
    emu: EmulatorServer, tmp_path: Path
) -> None:
    """Job 1 (default file state) creates and warns that its pod throws the record away, pointing at the
    kubernetes backend; jobs 2 and 3, whose pods have no record, refuse to apply or destroy the instance they cannot
    tell is theirs (before: job 3 reported "ok" and left the instance running) and say why; nothing is written.
    Outside AWX the unmanaged instance is left alone as before, and a state_path the job chose is not warned about."""
    name = f"awx-{uuid.uuid4().hex[:8]}"
    credential = inject(api_inputs(emu), tmp_path / "private")
    job1 = Pod(tmp_path, {**credential, **awx_job(101)})
    created = job1.run(s3(name))["localhost"]
    assert created["changed"] and created["operations"] == ["create"], created.get("msg")
    assert "AWX/Controller job 101" in job1.output and KUBERNETES_HINT in job1.output, job1.output
    uid = created["instance_uid"]

    seq = emu.last_seq
    job2 = Pod(tmp_path, {**credential, **awx_job(102)})
    applied = job2.run(s3(name))["localhost"]
    assert applied.get("failed") and KUBERNETES_HINT in applied["msg"] and uid in applied["msg"], applied
    job3 = Pod(tmp_path, {**credential, **awx_job(103)})
    destroyed = job3.run(s3(name, state="absent"))["localhost"]
    assert destroyed.get("failed") and KUBERNETES_HINT in destroyed["msg"] and uid in destroyed["msg"], destroyed
    assert write_calls(emu, seq) == []
    assert [i["instanceUid"] for i in live_instances(emu, S3_SERVICE_ID, name)] == [uid]

    outside = Pod(tmp_path, credential)
    left_alone = outside.run(s3(name, state="absent"))["localhost"]
    assert not left_alone.get("failed") and not left_alone["changed"], left_alone.get("msg")
    assert "AWX/Controller" not in outside.output

    volume = tmp_path / "volume" / "state.json"
    chosen = Pod(tmp_path, {**credential, **awx_job(104), "NUBES_STATE_PATH": str(volume)})
    adopted = chosen.run(s3(name, adopt_existing_on_create=True))["localhost"]
    assert adopted["decision"] == "adopt" and "AWX/Controller" not in chosen.output
    assert volume.is_file()


def test_credential_type_without_state_fields_changes_nothing(emu: EmulatorServer, tmp_path: Path) -> None:
    """The state fields of the credential type are optional: left blank, AWX injects them as empty variables,
    which the modules treat as unset (the file backend, the default workspace)."""
    credential = inject(api_inputs(emu), tmp_path / "private")
    assert credential["NUBES_STATE_BACKEND"] == "" and credential["NUBES_STATE_KUBECONFIG"] == ""
    name = f"awx-blank-{uuid.uuid4().hex[:8]}"
    pod = Pod(tmp_path, credential)
    created = pod.run(s3(name))["localhost"]
    assert not created.get("failed") and created["changed"], created.get("msg")
    again = pod.run(s3(name))["localhost"]
    assert not again.get("failed") and not again["changed"] and again["decision"] == "none", again.get("msg")
    records = (pod.home / ".local" / "state" / "nubes-cloud" / "state.json").read_text(encoding="utf-8")
    assert '"default"' in records and created["instance_uid"] in records


@pytest.mark.cluster
def test_credential_type_injects_the_kubernetes_backend(
    emu: EmulatorServer, tmp_path: Path, kubeconfig: str, kube_namespace: str
) -> None:
    """A credential with state_backend=kubernetes, a namespace, a workspace and a kubeconfig (pasted content, injected
    as a file): each job is a fresh pod, yet job 2 finds job 1's record in the cluster (no lookup by name, no
    change) and job 3 destroys the instance; no job warns about its state."""
    state = {
        "state_backend": "kubernetes",
        "state_namespace": kube_namespace,
        "state_kubeconfig": Path(kubeconfig).read_text(encoding="utf-8"),
        "workspace": "awx-prod",
    }
    credential = inject(api_inputs(emu, **state), tmp_path / "private")
    assert Path(credential["NUBES_STATE_KUBECONFIG"]).read_text(encoding="utf-8") == state["state_kubeconfig"]
    name = f"awx-k8s-{uuid.uuid4().hex[:8]}"
    job1 = Pod(tmp_path, {**credential, **awx_job(201)})
    created = job1.run(s3(name))["localhost"]
    assert created["changed"] and "AWX/Controller" not in job1.output, created.get("msg")

    seq = emu.last_seq
    job2 = Pod(tmp_path, {**credential, **awx_job(202)})
    again = job2.run(s3(name))["localhost"]
    assert not again.get("failed") and not again["changed"] and again["decision"] == "none", again.get("msg")
    assert [r["path"] for r in emu.requests(since=seq) if "/_emulator/" not in r["path"]] == [
        f"/instances/{created['instance_uid']}"
    ]
    job3 = Pod(tmp_path, {**credential, **awx_job(203)})
    gone = job3.run(s3(name, state="absent"))["localhost"]
    assert gone["changed"] and gone["operations"] == ["delete"], gone.get("msg")
    assert live_instances(emu, S3_SERVICE_ID, name) == []
