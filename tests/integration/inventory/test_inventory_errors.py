"""Clear errors of nubes.cloud.nubes: bad input fails before any API call; a wrong token or endpoint says
what to check; the token never shows. Runs with ANSIBLE_INVENTORY_UNPARSED_FAILED as AWX runs inventories."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.integration.inventory.conftest import World
from tests.integration.inventory.runner import InventoryRun, InventoryRunner
from tests.integration.inventory.test_inventory_hosts import DEFAULT

FAIL = {"ANSIBLE_INVENTORY_UNPARSED_FAILED": "true"}


def failed(inventory: InventoryRunner, config: dict[str, Any], **env: str) -> InventoryRun:
    run = inventory.run(config, env={**FAIL, **env})
    assert run.rc != 0, run.stdout
    return run


def message(run: InventoryRun) -> str:
    return " ".join(run.stderr.split())


def test_wrong_token_is_a_clear_error(world: World, inventory: InventoryRunner) -> None:
    """A token the API rejects: the source fails with the 401 and what to do; no host, no token in the output."""
    bad = world.emu.mint_token(ttl=-60)
    run = failed(inventory, DEFAULT, NUBES_API_TOKEN=bad)
    text = message(run)
    assert "answered HTTP 401" in text
    assert "api_token (NUBES_API_TOKEN) is a current access token" in text  # the core client's 401 hint
    assert "clock" in text
    assert bad not in run.stdout + run.stderr
    assert {r["status"] for r in run.requests} == {401}


def test_unreachable_endpoint_is_a_clear_error(world: World, inventory: InventoryRunner) -> None:
    """Nothing listens at the endpoint: "cannot reach the Nubes API ... check api_endpoint"."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = failed(inventory, DEFAULT, NUBES_API_ENDPOINT=f"http://127.0.0.1:{port}/api/v1/svc")
    text = message(run)
    assert "cannot reach the Nubes API at" in text  # the core client's message, after its retries
    assert "for GET /instances" in text
    assert "check api_endpoint (NUBES_API_ENDPOINT" in text


def test_endpoint_with_a_wrong_path_is_a_clear_error(world: World, inventory: InventoryRunner) -> None:
    """A URL of the right server but not the deck-api base (404): the message points at api_endpoint."""
    run = failed(inventory, DEFAULT, NUBES_API_ENDPOINT=world.emu.base_url + "/api/v2")
    text = message(run)
    assert "answered HTTP 404 without the deck-api's error body" in text
    assert "this endpoint is not the Nubes deck-api" in text
    assert "Set api_endpoint (NUBES_API_ENDPOINT) to the API's base URL" in text


@pytest.fixture
def html_server() -> Iterator[str]:
    """A web server on 127.0.0.1 that answers every GET with an HTML login page and 200."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><body>Sign in</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v1/svc"
    server.shutdown()
    server.server_close()


def test_endpoint_that_is_not_the_deck_api_is_an_error_not_an_empty_inventory(
    inventory: InventoryRunner, html_server: str
) -> None:
    """An HTML page with 200 is not "no instances": the source fails and names the endpoint."""
    run = failed(inventory, DEFAULT, NUBES_API_ENDPOINT=html_server)
    text = message(run)
    assert "this endpoint is not the Nubes deck-api" in text
    assert html_server in text
    assert "text/html" in text


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"services": ["postgres", "nosuch"]}, "services: unknown service 'nosuch'; known services:"),
        ({"statuses": ["deleted"]}, "Invalid value ['deleted'] for config 'statuses'"),
        ({"ansible_host_outputs": {"postgres": "adminPass"}}, "postgres has no public output 'adminPass'"),
        ({"ansible_host_outputs": {"nosuch": "ip"}}, "ansible_host_outputs: unknown service 'nosuch'"),
        ({"ansible_host_outputs": {"vm": [1, 2]}}, "give an output code or a list of output codes"),
    ],
    ids=["unknown-service", "status-deleted", "secret-output", "host-output-service", "host-output-type"],
)
def test_bad_input_fails_before_any_api_call(
    world: World, inventory: InventoryRunner, config: dict[str, Any], expected: str
) -> None:
    """Invalid options are refused with a message naming the problem, and no request reaches the API."""
    run = failed(inventory, {**DEFAULT, **config})
    assert expected in message(run)
    assert run.requests == []


@pytest.mark.parametrize("variable", ["NUBES_API_TOKEN", "NUBES_API_ENDPOINT"])
def test_missing_connection_setting_names_the_environment_variable(
    world: World, inventory: InventoryRunner, variable: str
) -> None:
    """No api_token (api_endpoint) in the file and none in the environment: the error names the option and the
    environment variable; nothing is sent."""
    option = "api_token" if variable.endswith("TOKEN") else "api_endpoint"
    run = failed(inventory, DEFAULT, **{variable: ""})
    assert f"{option} is not set: set it in the inventory file or the {variable} environment variable" in message(run)
    assert run.requests == []
