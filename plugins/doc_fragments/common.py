# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment nubes.cloud.common: the common options of the generated cloud modules."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  api_endpoint:
    description:
      - URL of the Nubes deck-api.
      - An endpoint that contains C(index.cfm) is the legacy proxy (calls go to C(?endpoint=/path));
        any other endpoint is the REST gateway (paths are appended), for example
        C(https://lk-api-gateway.ngcloud.ru/api/v1/svc).
      - If not set, the value of the E(NUBES_API_ENDPOINT) environment variable is used.
      - Only deck-api answers are believed. An endpoint that answers with something else (an HTML or login
        page, a redirect, a 404 without the API's error body) fails the task with a message naming it, before
        any write; an endpoint that cannot be reached fails after 4 attempts (14 s of waiting).
    type: str
  api_token:
    description:
      - Bearer token (a Keycloak JWT access token) for the deck-api.
      - If not set, the value of the E(NUBES_API_TOKEN) environment variable is used.
      - Never logged or returned.
      - A token the API rejects (HTTP 401) fails the task after 4 attempts (14 s); the message says what to
        check (the token, the endpoint, the clock of the host that runs the module).
    type: str
  validate_certs:
    description:
      - Verify the API's TLS certificate. Leave it on outside of tests.
    type: bool
    default: true
  ca_path:
    description:
      - A CA bundle (PEM file) used to verify the API's certificate instead of the system bundle.
    type: path
  request_timeout:
    description:
      - Timeout of one HTTP request, in seconds.
      - A request that gets no answer costs the task's retry budget (E(NUBES_RETRY_BUDGET), 120 s) the time it
        took, and is retried only while the budget is not used up, so an endpoint that never answers gets
        min(4, ceil(budget / O(request_timeout))) attempts (by default 2, in about 122 s). See C(docs/reliability.md).
    type: float
    default: 60.0
  wait:
    description:
      - Wait until the cloud operation has finished.
      - With V(false) the module returns as soon as the API has accepted and run the operation. The result's
        C(operation) carries its uid (C(finished=false)); C(changed) is true; C(status) and C(outputs) are read
        right after the start (a create shows V(creating), or V(not_created) until the API picks it up, and no
        outputs yet). The state record notes the operation as in flight. M(nubes.cloud.operation_info) waits for
        one or many such operations, so independent resources are created side by side.
      - The next run of the same task finds that operation. With V(true) it waits for it and records what it
        applied; with V(false), while it still runs, it only reports it (C(decision=in_flight),
        C(changed=false)). It never starts a second one.
      - A task that needs two operations (resume then modify, modify then redeploy) waits for the first one
        with V(false) too, and returns once the last one runs.
    type: bool
    default: true
  wait_timeout:
    description:
      - How long to wait for one cloud operation, in seconds.
      - Defaults to the operation's timeout from C(config/operation_timeouts.json) for this service.
      - Returned as C(operation.timeout), which M(nubes.cloud.operation_info) waits by default.
    type: int
  state_backend:
    description:
      - Where the recorded identities (the state) are kept.
      - V(file) is a local JSON file on the host that runs the module, locked against parallel runs (file locks).
      - V(kubernetes) keeps the records in a Secret per workspace in O(state_namespace) and locks each resource
        with a C(coordination.k8s.io/v1) Lease, so AWX jobs (a fresh pod each) and parallel controllers share
        one state and never create duplicates. Needs the Python package C(kubernetes) on the host that runs
        the module. See C(docs/state.md).
      - In an AWX/Automation Controller job (E(JOB_ID) and E(AWX_HOST) are set) with V(file) and no O(state_path),
        the state file lives in the job's pod and is lost after the job, so the module warns, and refuses decisions
        that need a record of an earlier job (see C(docs/awx/README.md)).
      - If not set, the value of the E(NUBES_STATE_BACKEND) environment variable is used.
    type: str
    choices: [file, kubernetes]
    default: file
  state_path:
    description:
      - Path of the state file of O(state_backend=file).
      - If not set, the value of the E(NUBES_STATE_PATH) environment variable is used, else
        C($XDG_STATE_HOME/nubes-cloud/state.json) (C(~/.local/state/nubes-cloud/state.json)).
    type: path
  state_namespace:
    description:
      - Namespace of the state Secrets and lock Leases of O(state_backend=kubernetes).
      - If not set, the value of the E(NUBES_STATE_NAMESPACE) environment variable is used, else the pod's own
        namespace when the module runs inside a pod, else V(default).
    type: str
  state_kubeconfig:
    description:
      - Kubeconfig file of the cluster that holds the state of O(state_backend=kubernetes).
      - If not set, the value of the E(NUBES_STATE_KUBECONFIG) environment variable is used, else the pod's
        service account when the module runs inside a pod (AWX), else E(KUBECONFIG) or C(~/.kube/config).
    type: path
  state_context:
    description:
      - Context of O(state_kubeconfig) to use; the current context if not set.
      - If not set, the value of the E(NUBES_STATE_CONTEXT) environment variable is used.
    type: str
  state_lock_timeout:
    description:
      - How long to wait for the lock of a resource that another run holds, in seconds; then the task fails
        with an error naming the holder.
      - If not set, the value of the E(NUBES_STATE_LOCK_TIMEOUT) environment variable is used.
    type: int
    default: 1800
  state_lease_duration:
    description:
      - Lease duration of the Kubernetes lock, in seconds. The holder renews it every third of this time;
        the lock of a holder that died is free after this time.
      - If not set, the value of the E(NUBES_STATE_LEASE_DURATION) environment variable is used.
    type: int
    default: 60
  workspace:
    description:
      - Name of the workspace; records of different workspaces never mix (like Terraform workspaces).
      - If not set, the value of the E(NUBES_WORKSPACE) environment variable is used.
    type: str
    default: default
notes:
  - An environment variable that is set but empty counts as not set (AWX injects a blank credential field that way).
  - Transient API errors (HTTP 401, 429, 502, 503, 504 on reads) are retried 3 times with 2, 4 and 8 seconds
    of backoff; writes are never re-sent blindly.
"""
