"""Determinism and drift detection: re-fetch changes nothing; hand edits and stale files fail check (P47)."""

from __future__ import annotations

import copy

import pytest

from generator import pipeline
from generator.workspace import Workspace
from tests.unit.generator.catalogue import GATEWAY, LEGACY, TOKEN, FakeDeckApi


@pytest.fixture
def generated(workspace: Workspace, api: FakeDeckApi) -> Workspace:
    pipeline.fetch(workspace, GATEWAY, TOKEN, api.transport())
    pipeline.render(workspace)
    return workspace


def snapshot(workspace: Workspace) -> dict[str, bytes]:
    return {p.relative_to(workspace.root).as_posix(): p.read_bytes() for p in workspace.root.rglob("*") if p.is_file()}


def test_refetch_and_rerender_of_unchanged_data_changes_nothing(generated: Workspace) -> None:
    """Deterministic output: a second fetch + render writes no file and the bytes are identical."""
    before = snapshot(generated)
    assert pipeline.fetch(generated, LEGACY, TOKEN, FakeDeckApi().transport()) == []
    assert pipeline.render(generated) == []
    assert snapshot(generated) == before


def test_api_order_does_not_change_the_output(generated: Workspace) -> None:
    """Stable ordering: operations and params listed in another order by the API give the same specs."""
    before = snapshot(generated)
    api = FakeDeckApi()
    for svc in api.services.values():
        svc["operations"].reverse()
        for op in svc["operations"]:
            op["cfsParams"].reverse()
        svc["outputs"].reverse()
    assert pipeline.fetch(generated, GATEWAY, TOKEN, api.transport()) == []
    assert snapshot(generated) == before


def test_no_timestamps_in_generated_files(generated: Workspace) -> None:
    """Generated files carry no dates or times (they would make every run a change)."""
    import re

    for path, data in snapshot(generated).items():
        assert not re.search(rb"20\d\d-\d\d-\d\d", data), path


def test_check_clean_after_render(generated: Workspace) -> None:
    """check passes offline and with a fetch when nothing drifted."""
    assert pipeline.check(generated).clean
    assert pipeline.check(generated, GATEWAY, TOKEN, FakeDeckApi().transport()).clean


def test_hand_edit_of_generated_module_fails_check_with_diff(generated: Workspace) -> None:
    """P47: a hand edit of a generated module is drift, reported as a unified diff."""
    path = generated.root / "plugins/modules/postgres.py"
    path.write_text(path.read_text(encoding="utf-8").replace('"type": "int"', '"type": "str"', 1), encoding="utf-8")
    report = pipeline.check(generated)
    assert not report.clean and report.changed == ["plugins/modules/postgres.py"]
    text = report.summary()
    assert "--- plugins/modules/postgres.py (on disk)" in text and "+++ plugins/modules/postgres.py (generated)" in text
    assert '-        "type": "str",' in text and '+        "type": "int",' in text
    assert "python -m generator all" in text


def test_hand_edit_of_spec_fails_check(generated: Workspace) -> None:
    """P47: a hand edit of specs/<name>.yml that still validates is drift against the API (and the renders)."""
    path = generated.root / "specs/s3.yml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("man: Ключ доступа.", "man: Access key."), encoding="utf-8"
    )
    online = pipeline.check(generated, GATEWAY, TOKEN, FakeDeckApi().transport())
    assert "specs/s3.yml" in online.changed
    offline = pipeline.check(generated)
    assert "docs/man/s3.md" in offline.changed  # the docs no longer match the edited spec


def test_reformatted_spec_fails_offline_check(generated: Workspace) -> None:
    """A spec whose text is not the canonical dump of its data is drift even offline."""
    path = generated.root / "specs/s3.yml"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert pipeline.check(generated).changed == ["specs/s3.yml"]


def test_api_change_is_drift_until_regenerated(generated: Workspace) -> None:
    """P47: a changed API (new param) is caught by check with an endpoint; `all` fixes it."""
    api = FakeDeckApi()
    api.services[12]["operations"][1]["cfsParams"].append(
        {"svcOperationCfsParamId": 51, "svcOperationCfsParam": "maxObjectsPerBucket", "label": "Объекты",
         "man": "", "dataType": "integer", "isRequired": False, "defaultValue": None}
    )  # fmt: skip
    report = pipeline.check(generated, GATEWAY, TOKEN, copy.deepcopy(api).transport())
    assert "specs/s3.yml" in report.changed and "plugins/modules/s3.py" in report.changed
    pipeline.fetch(generated, GATEWAY, TOKEN, api.transport())
    pipeline.render(generated)
    assert pipeline.check(generated, GATEWAY, TOKEN, api.transport()).clean


def test_stale_generated_file_fails_check_and_render_removes_it(generated: Workspace) -> None:
    """P47: a generated file no spec produces any more is stale; hand-written files are left alone."""
    stale = generated.root / "plugins/modules/old_service.py"
    stale.write_bytes((generated.root / "plugins/modules/s3.py").read_bytes())
    handwritten = generated.root / "plugins/modules/component.py"
    handwritten.write_text("# hand-written module\n", encoding="utf-8")
    report = pipeline.check(generated)
    assert report.stale == ["plugins/modules/old_service.py"]
    assert "removed stale plugins/modules/old_service.py" in pipeline.render(generated)
    assert not stale.exists() and handwritten.exists()
    assert pipeline.check(generated).clean


def test_deleted_generated_file_is_missing(generated: Workspace) -> None:
    """A generated file removed by hand is reported as missing."""
    (generated.root / "docs/man/flask.md").unlink()
    assert pipeline.check(generated).missing == ["docs/man/flask.md"]


def test_service_removed_from_list_leaves_stale_files(generated: Workspace) -> None:
    """Removing a service from services_list.txt makes its spec and modules stale until re-generated."""
    services = generated.services_list
    services.write_text(services.read_text(encoding="utf-8").replace("89  flask\n", ""), encoding="utf-8")
    report = pipeline.check(generated)
    assert "specs/flask.yml" in report.stale and "plugins/modules/flask.py" in report.stale
    pipeline.fetch(generated, GATEWAY, TOKEN, FakeDeckApi().transport())
    pipeline.render(generated)
    assert pipeline.check(generated).clean and not (generated.root / "plugins/modules/flask.py").exists()
