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
    type: str
  api_token:
    description:
      - Bearer token (a Keycloak JWT access token) for the deck-api.
      - If not set, the value of the E(NUBES_API_TOKEN) environment variable is used.
      - Never logged or returned.
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
    type: float
    default: 60.0
  wait:
    description:
      - Wait until the cloud operation has finished.
      - With V(false) the module returns right after the operation was started, with its uid in RV(operation);
        a later run of the same task waits for it and records the result.
    type: bool
    default: true
  wait_timeout:
    description:
      - How long to wait for one cloud operation, in seconds.
      - Defaults to the operation's timeout from C(config/operation_timeouts.json) for this service.
    type: int
  state_backend:
    description:
      - Where the recorded identities (the state) are kept.
      - V(file) is a local JSON file on the host that runs the module, locked against parallel runs.
    type: str
    choices: [file]
    default: file
  state_path:
    description:
      - Path of the state file of O(state_backend=file).
      - If not set, the value of the E(NUBES_STATE_PATH) environment variable is used, else
        C($XDG_STATE_HOME/nubes-cloud/state.json) (C(~/.local/state/nubes-cloud/state.json)).
    type: path
  workspace:
    description:
      - Name of the workspace; records of different workspaces never mix (like Terraform workspaces).
      - If not set, the value of the E(NUBES_WORKSPACE) environment variable is used.
    type: str
    default: default
notes:
  - Transient API errors (HTTP 401, 429, 502, 503, 504 on reads) are retried 3 times with 2, 4 and 8 seconds
    of backoff; writes are never re-sent blindly.
"""
