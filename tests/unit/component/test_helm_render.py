"""The Helm renderer with the real helm binary, no cluster (issue 17): values, subcharts, crds/, hooks, errors.

C2: the spec reaches the chart as values, unchanged. C10: the placement is the release name and namespace.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, Iterable, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import (
    ChartRender,
    HelmError,
    HelmSource,
    Manifest,
    helm_source,
    is_chart,
    render_chart,
    sort_output,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command

SHOP = Path(__file__).resolve().parents[2] / "charts" / "shop"


def _render(helm: str, chart: Path = SHOP, spec: Optional[Dict[str, Any]] = None, **options: Any) -> ChartRender:
    return render_chart(HelmSource(chart=str(chart), helm_binary=helm, **options), "shop", "team-a", spec, run_command)


def _names(manifests: Iterable[Manifest]) -> set[str]:
    return {f"{m.obj['kind']} {m.obj['metadata']['name']}" for m in manifests}


def _find(manifests: Iterable[Manifest], name: str) -> Manifest:
    return next(m for m in manifests if m.obj["metadata"]["name"] == name)


def _chart(tmp_path: Path, templates: Dict[str, str], name: str = "tiny") -> Path:
    """A small chart written for one test."""
    chart = tmp_path / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n", encoding="utf-8")
    for path, text in templates.items():
        target = chart / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return chart


def _hook_chart(tmp_path: Path, annotations: str) -> Path:
    return _chart(
        tmp_path,
        {
            "templates/hook.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: the-hook\n  annotations:\n"
                + "".join(f"    {line}\n" for line in annotations.splitlines())
            )
        },
    )


def test_sorts_the_output_into_crds_objects_and_hooks(helm_binary: str) -> None:
    """crds/ (also of subcharts) are CRDs, annotated objects are hooks, the rest (subchart included) is regular."""
    render = _render(helm_binary)
    assert (render.release_name, render.release_namespace) == ("shop", "team-a")
    assert _names(render.crds) == {"CustomResourceDefinition widgets.shop.nubes.test"}
    assert render.crds[0].source == "shop/crds/widgets.yaml"
    assert _names(render.objects) == {
        "ConfigMap shop-settings",
        "ConfigMap shop-ledger",
        "Deployment shop-web",
        "Widget shop-widget",
        "Service shop-cache",
        "ConfigMap shop-cache-config",
    }
    assert _find(render.objects, "shop-cache").source == "shop/charts/cache/templates/service.yaml.gotmpl"
    hooks = {h.obj["metadata"]["name"]: (h.kinds, h.weight, h.delete_policies) for h in render.hooks}
    assert hooks == {
        "shop-migrate": (("pre-install", "pre-upgrade"), -5, ("before-hook-creation",)),
        "shop-pre-config": (("pre-install",), 2, ("hook-succeeded",)),
        "shop-welcome": (("post-install", "post-upgrade"), 0, ("before-hook-creation",)),
        "shop-farewell": (("pre-delete",), 1, ("before-hook-creation",)),
        "shop-goodbye": (("post-delete",), 0, ("hook-succeeded",)),
    }


def test_values_chart_defaults_then_values_files_then_spec(helm_binary: str, tmp_path: Path) -> None:
    """C2, C10: values files override the chart's values.yaml, the spec overrides both; release = placement."""
    values = tmp_path / "values.yaml"
    values.write_text("greeting: from-file\nreplicas: 3\nglobal:\n  team: file-team\n", encoding="utf-8")
    spec = {"greeting": "from-spec", "cache": {"maxEntries": 7}}
    given = copy.deepcopy(spec)
    render = _render(helm_binary, spec=spec, values_files=(str(values),))
    assert spec == given  # C2: read-only
    settings = _find(render.objects, "shop-settings").obj
    assert settings["data"] == {"greeting": "from-spec", "releaseNamespace": "team-a", "team": "file-team"}
    assert _find(render.objects, "shop-web").obj["spec"]["replicas"] == 3
    cache = _find(render.objects, "shop-cache-config").obj
    assert cache["data"] == {"maxEntries": "7", "team": "file-team"}  # subchart values and global values
    assert _find(render.hooks, "shop-welcome").obj["data"]["message"] == "from-spec from shop"


def test_subchart_condition_from_the_spec(helm_binary: str) -> None:
    """`condition: cache.enabled` in Chart.yaml's dependencies: the spec switches the subchart off."""
    render = _render(helm_binary, spec={"cache": {"enabled": False}})
    assert not {"Service shop-cache", "ConfigMap shop-cache-config"} & _names(render.objects)
    assert "ConfigMap shop-settings" in _names(render.objects)


def test_packaged_chart_renders_like_its_directory(helm_binary: str, tmp_path: Path) -> None:
    """A .tgz made by `helm package` gives the same render as the chart directory."""
    subprocess.run([helm_binary, "package", str(SHOP), "--destination", str(tmp_path)], check=True, capture_output=True)
    packaged = tmp_path / "shop-0.3.0.tgz"
    assert packaged.is_file()
    spec = {"greeting": "packaged"}
    assert _render(helm_binary, packaged, spec).to_dict() == _render(helm_binary, SHOP, spec).to_dict()


def test_render_round_trips_as_plain_data(helm_binary: str) -> None:
    """The action plugin passes the render to the module as JSON; from_dict(to_dict()) gives it back."""
    render = _render(helm_binary)
    data = json.loads(json.dumps(render.to_dict()))
    assert ChartRender.from_dict(data) == render


def test_every_document_of_a_crds_file_is_a_crd(helm_binary: str, tmp_path: Path) -> None:
    """helm prints a crds/ file under one `# Source:` line; its later documents still belong to crds/."""
    crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {0}s.x.test\n"
        "spec:\n  group: x.test\n  scope: Namespaced\n  names: {{plural: {0}s, kind: {1}}}\n"
        "  versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}]\n"
    )
    chart = _chart(
        tmp_path,
        {
            "crds/both.yaml": crd.format("apple", "Apple") + "---\n" + crd.format("pear", "Pear"),
            "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
        },
    )
    render = _render(helm_binary, chart)
    assert _names(render.crds) == {"CustomResourceDefinition apples.x.test", "CustomResourceDefinition pears.x.test"}
    assert _names(render.objects) == {"ConfigMap plain"}


def test_template_error_is_helms_message(helm_binary: str, tmp_path: Path) -> None:
    """A failing template fails with helm's own message (file and cause), before anything is applied."""
    chart = _chart(tmp_path, {"templates/db.yaml": '{{ required "set .Values.database" .Values.database }}\n'})
    with pytest.raises(HelmError, match=r"helm template failed: .*tiny/templates/db.yaml.*set \.Values\.database"):
        _render(helm_binary, chart)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: tmp / "nothing-here", r"chart .*nothing-here does not exist; give a chart directory"),
        (lambda tmp: tmp, r"chart directory .* has no Chart.yaml"),
    ],
)
def test_bad_chart_path(helm_binary: str, tmp_path: Path, make: Any, message: str) -> None:
    """A chart path that is neither a chart directory nor a file fails before helm runs."""
    with pytest.raises(HelmError, match=message):
        _render(helm_binary, make(tmp_path))


def test_missing_values_file(helm_binary: str, tmp_path: Path) -> None:
    """A values file that does not exist is named."""
    with pytest.raises(HelmError, match=r"values file .*absent.yaml does not exist"):
        _render(helm_binary, values_files=(str(tmp_path / "absent.yaml"),))


def test_no_helm_on_the_path_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Like kustomize: without a helm binary the error says where to get one."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(HelmError, match=r"no helm binary on the PATH of the controller; install Helm 3.8 or later"):
        _render("")


def test_helm_binary_must_be_executable(tmp_path: Path) -> None:
    """An explicit helm_binary that is not an executable file is named."""
    fake = tmp_path / "helm"
    fake.write_text("not a program", encoding="utf-8")
    with pytest.raises(HelmError, match=r"helm_binary .*helm is not an executable file"):
        _render(str(fake))


def test_helm_on_the_path_is_used(helm_binary: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without helm_binary the helm of the PATH renders."""
    monkeypatch.setenv("PATH", os.path.dirname(helm_binary) + os.pathsep + os.environ.get("PATH", ""))
    assert _names(_render("").crds) == {"CustomResourceDefinition widgets.shop.nubes.test"}


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        ("helm.sh/hook: pre-rollback", r"ConfigMap the-hook \(tiny/templates/hook.yaml\): hook 'pre-rollback' is not "),
        ("helm.sh/hook: post-install,post-rollback", r"hook 'post-rollback' is not supported; a component runs"),
        ("helm.sh/hook: crd-install", r"helm.sh/hook names hook kinds helm does not know \(crd-install\), which helm"),
        ("helm.sh/hook: test", r"hook 'test' is not supported: Helm runs test hooks only with `helm test`"),
        ('helm.sh/hook: " , "', r"names hook kinds helm does not know \(,\)"),
        ('helm.sh/hook: pre-install\nhelm.sh/hook-weight: "heavy"', r"hook-weight 'heavy' is not an integer"),
        ('helm.sh/hook: pre-install\nhelm.sh/hook-weight: "101"', r"hook-weight 101 is out of range"),
        ("helm.sh/hook: pre-install\nhelm.sh/hook-delete-policy: hook-failed", r"'hook-failed' is not supported"),
        ("helm.sh/hook: pre-install\nhelm.sh/hook-delete-policy: never", r"unknown helm.sh/hook-delete-policy 'never'"),
    ],
)
def test_unsupported_hooks_name_the_object_and_the_hook(
    helm_binary: str, tmp_path: Path, annotations: str, message: str
) -> None:
    """Hooks a component cannot run (rollback, test, Helm 2's crd-install) and bad hook annotations are errors."""
    with pytest.raises(HelmError, match=message):
        _render(helm_binary, _hook_chart(tmp_path, annotations))


def test_skip_tests_leaves_test_hooks_out(helm_binary: str, tmp_path: Path) -> None:
    """skip_tests: true passes --skip-tests, so test hooks are not rendered at all."""
    chart = _hook_chart(tmp_path, "helm.sh/hook: test")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n", encoding="utf-8"
    )
    render = _render(helm_binary, chart, skip_tests=True)
    assert (_names(render.objects), render.hooks) == ({"ConfigMap kept"}, [])


def test_capabilities_options(helm_binary: str, tmp_path: Path) -> None:
    """kube_version and api_versions reach .Capabilities (charts branch on them)."""
    chart = _chart(
        tmp_path,
        {
            "templates/cm.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n"
                "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
                '  monitoring: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}\n'
            )
        },
    )
    render = _render(helm_binary, chart, kube_version="v1.36.0", api_versions=("monitoring.coreos.com/v1",))
    assert render.objects[0].obj["data"] == {"kube": "v1.36.0", "monitoring": "true"}


def test_empty_hook_annotation() -> None:
    """An empty hook list (which helm itself already leaves out) is an error, not a regular object."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {helm.sh/hook: ' , '}\n"
    with pytest.raises(HelmError, match=r"ConfigMap a \(helm template output\): empty helm.sh/hook annotation"):
        sort_output(text, "r", "ns")


def test_sort_output_without_source_lines() -> None:
    """Output without `# Source:` lines (another tool's) is all regular objects and hooks."""
    render = sort_output("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n", "r", "ns")
    assert _names(render.objects) == {"ConfigMap a"}
    assert render.objects[0].source == "helm template output"


def test_helm_options() -> None:
    """source (the chart) plus the module's helm options make a HelmSource; one values file may be a string."""
    source = helm_source("charts/shop", {"values_files": "prod.yaml", "skip_tests": True})
    assert source == HelmSource(chart="charts/shop", values_files=("prod.yaml",), skip_tests=True)
    assert source.crds_delete_policy == "orphan"
    assert helm_source("charts/shop") == HelmSource(chart="charts/shop")


@pytest.mark.parametrize(
    ("chart", "options", "message"),
    [
        ("", {}, r"source is required for source_kind helm: the path of a chart directory or a packaged .tgz"),
        ("c", {"valuesFiles": []}, r"helm: unknown option\(s\) valuesFiles; known: kube_version, helm_binary"),
        ("c", {"kube_version": 1.37}, r"helm.kube_version must be a string, not float"),
        ("c", {"api_versions": ["v1", ""]}, r"helm.api_versions must be a list of non-empty strings"),
        ("c", {"skip_tests": "yes"}, r"helm.skip_tests must be true or false"),
        ("c", {"crds_delete_policy": "never"}, r"helm.crds_delete_policy: invalid delete policy 'never'; use one of"),
    ],
)
def test_helm_option_errors(chart: str, options: Dict[str, Any], message: str) -> None:
    """Bad helm options fail before helm runs or anything is applied, naming the option."""
    with pytest.raises(HelmError, match=message):
        helm_source(chart, options)


def test_is_chart(tmp_path: Path) -> None:
    """source_kind auto takes a directory with Chart.yaml or a .tgz for a chart, nothing else."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "archive.tgz").write_bytes(b"")
    assert [is_chart(str(p)) for p in (SHOP, tmp_path / "archive.tgz", tmp_path / "plain", SHOP / "values.yaml")] == [
        True,
        True,
        False,
        False,
    ]


def test_helm_runs_through_the_given_runner(helm_binary: str) -> None:
    """module_utils starts no process itself: helm runs through the runner (here one that records the call), with
    helm's home directories moved to a temporary place and the spec on helm's standard input (`--values -`, last, so
    it wins), never on the command line (issue 26)."""
    calls = []

    def recording(argv, environ_update=None, stdin=None):
        calls.append((list(argv), dict(environ_update), stdin))
        return run_command(argv, environ_update, stdin)

    source = HelmSource(chart=str(SHOP), helm_binary=helm_binary, values_files=(str(SHOP / "values.yaml"),))
    render_chart(source, "shop", "team-a", {"password": "s3cret"}, recording)
    [(argv, env, stdin)] = calls
    assert argv[:8] == [
        helm_binary,
        "template",
        "shop",
        str(SHOP),
        "--namespace",
        "team-a",
        "--include-crds",
        "--values",
    ]
    assert argv[8:11] == [str(SHOP / "values.yaml"), "--values", "-"]
    assert json.loads(stdin) == {"password": "s3cret"}
    assert not any("s3cret" in arg for arg in argv)
    assert sorted(env) == ["HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME", "HELM_PLUGINS"]


def files_holding(directory: Path, secret: str) -> list[str]:
    """The files under `directory` whose bytes contain `secret`."""
    return [str(p) for p in directory.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_no_file_holds_the_spec_while_helm_runs(
    helm_binary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 (the in-process path writes nothing of the task's arguments to disk): while helm runs, no file in the
    temporary directory (where helm's home is made) holds a secret of the spec, and the chart renders with it."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    secret = f"Pw-{uuid.uuid4().hex}"
    creds = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n"
    creds += "  password: {{ .Values.db.password | quote }}\n"
    chart = _chart(tmp_path, {"templates/creds.yaml": creds})
    found: Dict[str, list[str]] = {}

    def watching(argv, environ_update=None, stdin=None):
        found["during"] = files_holding(temporary, secret)
        found["helm home"] = [str(p) for p in temporary.iterdir()]
        return run_command(argv, environ_update, stdin)

    render = render_chart(
        HelmSource(chart=str(chart), helm_binary=helm_binary), "shop", "team-a", {"db": {"password": secret}}, watching
    )
    assert render.objects[0].obj["stringData"] == {"password": secret}
    assert found["during"] == [] and len(found["helm home"]) == 1  # helm's home was there, without the spec
    assert list(temporary.iterdir()) == []  # and is gone


def test_runner_reports_a_hung_or_missing_program(tmp_path: Path) -> None:
    """The controller runner stops a hung program after its timeout and names a program that cannot start."""
    assert run_command(["sleep", "5"], {}, timeout=0.2) == (124, "", "sleep did not finish within 0.2 s")
    code, _out, err = run_command([str(tmp_path / "missing")], {})
    assert (code, err) == (127, f"cannot run {tmp_path / 'missing'}: No such file or directory")
