# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the module runs in an AWX / Automation Controller job whose state file dies with the job (issue 16).

AWX (and Red Hat's Automation Controller, built from it) runs each job in a fresh execution-environment pod and
sets `JOB_ID` and `AWX_HOST` in the job's environment (`RunJob.build_env`; older Tower versions also set
`TOWER_HOST`). A state file written there under the default path is thrown away with the pod, so the next job of
the template finds none of the records. Only the default path counts: a `state_path` the user chose (e.g. on a
volume mounted into the job pod) is taken as deliberate.
"""

from __future__ import annotations

from typing import Any, Mapping

JOB_VARIABLE = "JOB_ID"
HOST_VARIABLES = ("AWX_HOST", "TOWER_HOST")


def controller_job(environ: Mapping[str, str]) -> str:
    """`AWX/Controller job <id>` when the job environment variables are set, else ""."""
    job = (environ.get(JOB_VARIABLE) or "").strip()
    if job and any((environ.get(name) or "").strip() for name in HOST_VARIABLES):
        return f"AWX/Controller job {job}"
    return ""


def ephemeral_state_job(params: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """The job (as `controller_job` names it) when its records go to the default state file of its pod, else ""."""
    if (params.get("state_backend") or "file") != "file" or params.get("state_path"):
        return ""
    return controller_job(environ)


def ephemeral_state_warning(job: str, path: str) -> str:
    return (
        f"this task runs in {job} with state_backend=file: its identity records go to {path} inside the job's pod, "
        "which is thrown away after the job, so the next job will not find what this one created or adopted. Set "
        "state_backend: kubernetes (docs/awx/README.md; the Nubes API credential type can inject it), or a "
        "state_path on a volume that outlives the job"
    )


def lost_record_hint(job: str, then: str = "then adopt it once") -> str:
    """The reason an expected record is missing, for decisions refused in such a job."""
    return (
        f"{job} keeps its state in a file that its pod throws away, so the record of an earlier job that created or "
        f"adopted it is likely lost: set state_backend: kubernetes (docs/awx/README.md), {then}"
    )
