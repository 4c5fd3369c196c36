"""The generator's steps on a workspace: fetch, render, check (P46: each one command)."""

from __future__ import annotations

from typing import Any

import httpx

from generator.api_client import CatalogueClient
from generator.drift import DriftReport, compare
from generator.errors import GeneratorError
from generator.fetch import fetch_specs
from generator.render import (
    ACTION_DIR,
    DOCS_MAN_DIR,
    DOCS_MODULES_DIR,
    MODULES_DIR,
    README_PATH,
    SERVICES_DIR,
    render_all,
    spec_path,
)
from generator.spec_io import dump_spec, load_spec
from generator.workspace import Workspace

SPEC_SCOPE: tuple[str, ...] = ("specs/",)
RENDER_SCOPE: tuple[str, ...] = (
    f"{MODULES_DIR}/",
    f"{SERVICES_DIR}/",
    f"{ACTION_DIR}/",
    f"{DOCS_MODULES_DIR}/",
    f"{DOCS_MAN_DIR}/",
)


def fetched_spec_files(
    workspace: Workspace, endpoint: str, token: str, transport: httpx.BaseTransport | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Specs from the API (in list order) and their file texts by repo-relative path."""
    with CatalogueClient(endpoint, token, transport=transport) as client:
        specs = fetch_specs(client, workspace.entries(), workspace.timeouts())
    return specs, {spec_path(s["name"]): dump_spec(s) for s in specs}


def load_specs(workspace: Workspace) -> list[dict[str, Any]]:
    """The listed services' specs from disk, validated, in list order."""
    specs = []
    for entry in workspace.entries():
        path = workspace.spec_file(entry.name)
        if not path.is_file():
            raise GeneratorError(
                f"{spec_path(entry.name)} is missing for service {entry.service_id}: run `python -m generator fetch`"
            )
        spec = load_spec(path)
        if spec["service_id"] != entry.service_id or spec["name"] != entry.name:
            raise GeneratorError(
                f"{spec_path(entry.name)} describes service {spec['service_id']} ({spec['name']}), but "
                f"services_list.txt says {entry.service_id} ({entry.name}): run `python -m generator fetch`"
            )
        specs.append(spec)
    return specs


def render_inputs(workspace: Workspace) -> dict[str, Any]:
    """render_all's inputs from config/ besides the specs: requires_ansible, the English texts and the example
    values (a change to any of them is drift until rendered, P47)."""
    return {
        "requires_ansible": workspace.requires_ansible(),
        "english": workspace.english(),
        "examples": workspace.example_values(),
    }


def fetch(workspace: Workspace, endpoint: str, token: str, transport: httpx.BaseTransport | None = None) -> list[str]:
    """Write specs/<name>.yml for every listed service; returns a line per written/removed file."""
    files = fetched_spec_files(workspace, endpoint, token, transport)[1]
    written, removed = workspace.write_all(files, SPEC_SCOPE)
    return [f"wrote {p}" for p in written] + [f"removed stale {p}" for p in removed]


def render(workspace: Workspace) -> list[str]:
    """Write every generated file from the specs on disk; returns a line per written/removed file."""
    files = render_all(load_specs(workspace), workspace.read(README_PATH), **render_inputs(workspace))
    written, removed = workspace.write_all(files, RENDER_SCOPE)
    return [f"wrote {p}" for p in written] + [f"removed stale {p}" for p in removed]


def check(
    workspace: Workspace,
    endpoint: str | None = None,
    token: str | None = None,
    transport: httpx.BaseTransport | None = None,
) -> DriftReport:
    """Re-fetch (with an endpoint) and re-render in memory, then compare with the disk (P47)."""
    if endpoint:
        specs, spec_files = fetched_spec_files(workspace, endpoint, token or "", transport)
        report = compare(workspace, spec_files, SPEC_SCOPE)
    else:
        specs = load_specs(workspace)
        # Specs must also be the canonical text of their data (catches hand edits that still validate).
        spec_files = {spec_path(s["name"]): dump_spec(s) for s in specs}
        report = compare(workspace, spec_files, SPEC_SCOPE)
    files = render_all(specs, workspace.read(README_PATH), **render_inputs(workspace))
    rendered = compare(workspace, files, RENDER_SCOPE)
    report.changed += rendered.changed
    report.missing += rendered.missing
    report.stale += rendered.stale
    report.diff_lines += rendered.diff_lines
    return report
