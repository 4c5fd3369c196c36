"""The generated modules (plugins/modules, generator output) drive the core through `run_module` and the
AnsibleModule adapter, against the running emulator: the generator <-> core contract end to end."""

from __future__ import annotations

import importlib
import json
from typing import Any, Dict

import pytest

from tests.ansible_compat import patch_module_args

REALM = "k8s-3.ext.nubes.ru"


def run_generated(module: str, args: Dict[str, Any], capsys: pytest.CaptureFixture[str]) -> Dict[str, Any]:
    mod = importlib.import_module("ansible_collections.nubes.cloud.plugins.modules." + module)
    with patch_module_args(args), pytest.raises(SystemExit):
        mod.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def common(emu: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    monkeypatch.setenv("NUBES_API_ENDPOINT", emu.endpoint)
    monkeypatch.setenv("NUBES_API_TOKEN", emu.token)
    monkeypatch.setenv("NUBES_STATE_PATH", str(tmp_path / "state.json"))
    return {}


def test_generated_instance_subresource_and_info_modules(
    common: Dict[str, Any], emu: Any, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generated s3 / postgres / postgres_user / postgres_info modules: create, no-op, sub-resource, info."""
    s3 = run_generated("s3", {"resource_name": name + "-s3", "display_name": name, "resource_realm": REALM}, capsys)
    assert s3["changed"] and s3["status"] == "running" and s3["instance"]["outputs"]
    again = run_generated("s3", {"resource_name": name + "-s3", "display_name": name, "resource_realm": REALM}, capsys)
    assert not again["changed"]

    pg_args = {
        "resource_name": name,
        "s3_uid": name + "-s3",
        "resource_realm": REALM,
        "json_parameters": {},
        "tls_settings": {"type": "self-signed", "s3_backup_uid": name + "-s3"},
    }
    pg = run_generated("postgres", pg_args, capsys)
    assert pg["changed"] and pg["instance"]["params"]["s3_uid"] == s3["instance_uid"]
    assert pg["instance"]["params"]["tls_settings"]["s3BackupUid"] == s3["instance_uid"]
    assert "adminPass" not in pg["outputs"]

    user = {"parent_resource_name": name, "username": "app", "password": "Pw-secret-0042", "role": "readonly"}
    created = run_generated("postgres_user", user, capsys)
    assert created["operations"] == ["create_user"] and "Pw-secret-0042" not in json.dumps(created)

    info = run_generated("postgres_info", {"resource_name": name}, capsys)
    assert info["exists"] and info["instance_uid"] == pg["instance_uid"]
    assert [u["username"] for u in info["subresources"]["user"]] == ["app"]

    failed = run_generated("postgres", {"resource_name": name + "-x", "resource_cpu": 100}, capsys)
    assert failed["failed"] and "missing required parameter" in failed["msg"]
