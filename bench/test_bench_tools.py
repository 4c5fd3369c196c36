"""Tests of the benchmark tooling itself (run by `make bench`, not by `make test`): the poll schedules the latency
figures are compared with, the statistics, the kubectl request counter and the report's merge into
docs/benchmarks.md. No timing is asserted here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import component_compare
import poll_simulation
import regression
import report
import report_issue26
import worker_profile
from benchlib import summary


def test_core_schedule_is_the_core_poller() -> None:
    """The simulated core schedule is the core's own Poller: an immediate poll, then every 10 % of the time waited
    so far, at least 0.2 s (nubes/operations.py)."""
    polls = list(poll_simulation.core_polls(3.0))
    assert polls[:5] == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8])
    assert polls[-2] - polls[-3] == pytest.approx(0.1 * polls[-3])  # past 2 s: 10 % of the time waited


def test_fixed_interval_poller_sleeps_first() -> None:
    assert poll_simulation.simulate(poll_simulation.FIXED_10, 2.0) == pytest.approx(8.0)
    assert poll_simulation.simulate(poll_simulation.FIXED_5, 2.0) == pytest.approx(3.0)
    assert poll_simulation.polls_needed(poll_simulation.FIXED_5, 12.0) == 3


def test_expected_latency_averages_over_durations() -> None:
    """A fixed 10 s poller that happens to divide the duration is not reported as perfect."""
    mean, worst, polls = poll_simulation.expected(poll_simulation.FIXED_10, 60.0)
    assert 4.5 < mean < 5.5
    assert worst > 9.0
    assert 6 <= polls <= 7


def test_proposed_schedule_stays_within_ten_percent() -> None:
    for duration in (2.0, 5.0, 30.0, 60.0, 300.0):
        latency = poll_simulation.simulate(poll_simulation.PROPOSED, duration)
        assert latency <= max(0.1 * duration, 0.2) + 1e-9


def test_summary_median_min_max() -> None:
    assert summary([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "runs": 3}
    assert summary([])["runs"] == 0


def test_kubectl_request_lines_both_log_formats() -> None:
    old = "I1129 16:37:44.656024 564 round_trippers.go:560] GET https://127.0.0.1:1/api/v1/x 200 OK in 2 milliseconds"
    new = 'I1129 round_trippers.go:632] "Response" verb="PATCH" url="https://127.0.0.1:1/api" status="200 OK"'
    assert component_compare.KUBECTL_REQUEST.search(old)
    assert component_compare.KUBECTL_REQUEST.search(new)
    assert not component_compare.KUBECTL_REQUEST.search("I1129 loader.go:402] Config loaded from file")


def test_merge_keeps_the_component_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report rewrites only its own block; the component engine's section (written by
    bench/component_bench.py) stays as it is, and its table is read back for the chart."""
    doc = tmp_path / "benchmarks.md"
    component = (
        "## Component engine\n\nMeasured by `bench/component_bench.py`.\n\n"
        "| tool | first apply (s) | ratio | no-op re-apply (s) | ratio |\n|---|---:|---:|---:|---:|\n"
        "| `kubectl apply --server-side -f` | 40.10 | 1.00 | 30.00 | 1.00 |\n"
    )
    doc.write_text("# Benchmarks\n\n" + component, encoding="utf-8")
    monkeypatch.setattr(report, "DOC", doc)
    first = report.merge(f"{report.BEGIN}\nold figures\n{report.END}\n")
    assert first.index(report.BEGIN) < first.index("## Component engine")
    doc.write_text(first, encoding="utf-8")
    second = report.merge(f"{report.BEGIN}\nnew figures\n{report.END}\n")
    assert "old figures" not in second
    assert "new figures" in second
    assert component in second
    assert report.component_bench_rows(second) == [("kubectl apply --server-side -f", 40.1, 30.0)]


def test_regression_check_fails_above_twenty_percent() -> None:
    """A checked figure may be up to 20 % above its baseline; more fails; a figure without a baseline is reported."""
    assert regression.compare({"ratio": 1.19, "new": 5.0}, {"ratio": 1.0}) == []
    failures = regression.compare({"ratio": 1.21}, {"ratio": 1.0})
    assert len(failures) == 1 and failures[0].startswith("ratio: 1.210 > 1.200")


def test_regression_figures_are_read_from_the_component_results() -> None:
    """The component area's checked figures come from the places component_compare.py writes them."""
    stat = {"median": 0.4, "min": 0.3, "max": 0.5, "runs": 3}
    results = {
        "sizes": [{"objects": 300, "ratios": {"component/k8s first apply": stat}}],
        "floor": {"engine_over_floor": stat},
        "operator_set": {"ratios": {"component/kubectl no-op": stat}},
    }
    found = regression.figures("component", results)
    assert found == {
        "component/kubernetes.core.k8s, first apply, 300 objects": 0.4,
        "engine first apply over the apiserver's floor": 0.4,
        "operator set, component/kubectl no-op": 0.4,
    }


def test_report_keeps_the_sections_of_areas_not_rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-running one area rewrites its section and target rows; the others stay as they were on the page."""
    doc = tmp_path / "benchmarks.md"
    block = (
        "\n## Targets\n\n| target | measured (median) |  |\n|---|---|---|\n"
        "| generator: render + check of all services < 3 s | 1.4 s | met |\n"
        "| component old row | 1x | met |\n"
        "\n## Generator: full render\n\nold generator figures\n"
        "\n## Components: old\n\nold component figures\n"
    )
    doc.write_text(f"# Benchmarks\n\n{report.BEGIN}{block}{report.END}\n", encoding="utf-8")
    monkeypatch.setattr(report, "DOC", doc)
    block_now = report.current_block()
    assert report.kept_section(block_now, "generator").startswith("## Generator: full render")
    assert "old component figures" not in report.kept_section(block_now, "generator")
    kept = report.kept_target_rows(block_now, ["generator"])
    assert kept == [["generator: render + check of all services < 3 s", "1.4 s", "met"]]


def parallel_result(ratio: float) -> dict[str, object]:
    stat = {"median": ratio, "min": ratio, "max": ratio, "runs": 1}
    keys = ("one", "sequential", "parallel", "floor")
    figures = {f"{k}_{kind}": stat for k in keys for kind in ("span", "wall")}
    for key in ("parallel_over_one", "sequential_over_one", "sequential_over_parallel", "start_task", "ping_task",
                "starts_span", "wait_task", "parallel_cloud"):  # fmt: skip
        figures[key] = stat
    return {"create_seconds": 6.0, "rounds": 1, "figures": figures, "overlapped_every_round": True,
            "target_parallel_over_one": 1.3, "machine": {"load_average": [ratio, 2.0, 3.0]}}  # fmt: skip


def test_splice_updates_one_area_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """`report.py --areas parallel`: the area's section goes after the cloud section and its target row into the
    table; a second splice replaces both; every other figure of the page stays as it was."""
    monkeypatch.setattr(report, "bar_chart", lambda *args, **kwargs: "![chart](x.png)\n")
    machine = (
        "- The machine is shared: load average (1, 5, 15 min) at the end of each area: cloud 1, 2, 3; scale 4, 5, 6."
    )
    page = (
        f"# Benchmarks\n\n{report.BEGIN}\n\n## Machine\n\n{machine} Absolute times move.\n"
        "\n## Targets\n\n| target | measured (median) |  |\n|---|---|---|\n"
        "| cloud row | 1.70x | **missed** |\n| generator row | 1.4 s | met |\n\n### What limits the targets that"
        " are missed\n\nold text\n"
        f"\n{report.CLOUD_TITLE}\n\ncloud figures\n\n## Scale: 50 instances\n\nscale figures\n{report.END}\nfooter\n"
    )
    analysis = "\n### What limits the targets that are missed\n\nnew text\n"
    once = report.splice_area(page, "parallel", {"parallel": parallel_result(1.5)}, analysis)
    assert once.index(report.CLOUD_TITLE) < once.index(report.PARALLEL_TITLE) < once.index("## Scale: 50")
    assert "| cloud row | 1.70x | **missed** |\n| generator row | 1.4 s | met |\n| three 6 s creates" in once
    assert "| 1.50x | **missed** |" in once and "cloud figures" in once and "scale figures" in once
    twice = report.splice_area(once, "parallel", {"parallel": parallel_result(1.2)})
    assert twice.count(report.PARALLEL_TITLE) == 1 and twice.count("| three 6 s creates") == 1
    assert "| 1.20x | met |" in twice and "1.50x" not in twice
    assert report.splice_area(twice, "parallel", {"parallel": parallel_result(1.2)}) == twice  # idempotent
    assert twice.endswith(f"{report.END}\nfooter\n")
    assert "| n/a |\n\n### What limits the targets that are missed\n\nnew text\n\n## Cloud" in once
    assert once.count("| not measured in the controller's process yet") == 6  # issue 26's rows, none measured here
    assert "each area: cloud 1, 2, 3; parallel 1.5, 2.0, 3.0; scale 4, 5, 6. Absolute" in once
    assert "each area: cloud 1, 2, 3; parallel 1.2, 2.0, 3.0; scale 4, 5, 6. Absolute" in twice


def test_splice_of_the_component_area_drops_its_old_rows_and_keeps_the_engine_chart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`report.py --areas component`: target rows of the area that it no longer measures go, its measured rows are
    replaced, other areas' rows stay, and the chart of bench/component_bench.py's table follows the section."""
    monkeypatch.setattr(report, "bar_chart", lambda *args, **kwargs: "![chart](component_bench.png)\n")
    sections = [(name, render) for name, render in report.SECTIONS if name != "component"]
    sections.append(("component", lambda comp: "## Components: tools\n\nnew component figures\n"))
    monkeypatch.setattr(report, "SECTIONS", sections)
    engine = "engine first apply of 300 objects in-process within 1.5x of the apiserver's own limit"
    page = (
        f"# Benchmarks\n\n{report.BEGIN}\n\n## Targets\n\n| target | measured (median) |  |\n|---|---|---|\n"
        "| component >= 10x faster than `kubernetes.core.k8s` | 0.90x | **missed** |\n"
        f"| {engine} | 1.90x (1.90 s vs 1.00 s) | **missed** |\n| generator: render < 3 s | 1.4 s | met |\n"
        "\n## Components: tools\n\nold component figures\n\n### Figures of `bench/component_bench.py`\n\nold chart\n"
        "\n## Emulator throughput\n\nemulator figures\n"
        f"{report.END}\n\n## Component engine\n\n"
        "| tool | first apply (s) | ratio | no-op re-apply (s) | ratio |\n|---|---:|---:|---:|---:|\n"
        "| `kubectl apply --server-side -f` | 40.10 | 1.00 | 30.00 | 1.00 |\n"
    )
    stat = {"median": 1.4, "min": 1.4, "max": 1.4, "runs": 1}
    floor = {"objects": 300, "engine_over_floor": stat, "engine_seconds": stat}
    floor["floor_seconds"] = {**stat, "median": 1.0}
    data = {"component": {"floor": floor, "machine": {"load_average": [1.0, 2.0, 3.0]}}}
    text = report.splice_area(page, "component", data)
    assert "10x faster" not in text and "1.90x" not in text
    assert f"| {engine} | 1.40x (1.40 s vs 1.00 s) | met |" in text
    assert "| generator: render < 3 s | 1.4 s | met |" in text
    assert "old component figures" not in text and "old chart" not in text
    assert text.index("new component figures") < text.index("![chart](component_bench.png)") < text.index("## Emul")


def test_issue26_rows_are_read_from_each_areas_in_process_figures() -> None:
    """Issue 26: each of the six target rows comes from its area's in-process figure, with the module path's beside
    it; a target that no area measured keeps a row that says so."""

    def stat(value: float) -> dict[str, object]:
        return {"median": value, "min": value, "max": value, "runs": 1}

    data = {
        "scale": {"figures": {"noop_inprocess_vs_ping": stat(0.5), "noop_vs_ping": stat(1.4)}},
        "parallel": {"figures": {"parallel_over_one_inprocess": stat(1.2)}},
        "component": {
            "sizes": [{"objects": 300, "ratios": {"component (in-process)/k8s no-op re-apply": stat(0.25)}}],
            "operator_set": {
                "ratios": {f"component (in-process)/kubectl {p}": stat(0.6) for p in ("no-op", "check+diff")}
            },
        },
    }
    rows = {row[0]: row[1:] for row in report_issue26.targets(data)}
    assert rows[report_issue26.SCALE] == ["0.50x; as modules 1.40x", "met"]
    assert rows[report_issue26.PARALLEL] == ["1.20x", "**missed**"]
    assert rows[report_issue26.COMPONENT_K8S] == ["0.25x", "met"]
    assert rows[report_issue26.OPERATOR][1] == "met"
    missing = report_issue26.placeholders(list(rows))
    assert [row[0] for row in missing] == [report_issue26.CLOUD, report_issue26.COMPONENT_TASK]
    assert missing[0][1:] == ["not measured in the controller's process yet (`make bench-inprocess`)", "n/a"]


def test_regression_update_only_new_keeps_the_recorded_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--update --only-new`: a figure without a baseline is added with the run it came from; recorded ones stay."""
    monkeypatch.setattr(regression, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(regression, "BASELINES", tmp_path / "baselines")
    (tmp_path / "results").mkdir()
    (tmp_path / "baselines").mkdir()
    figures = {"noop_vs_ping": {"median": 1.9}, "noop_inprocess_vs_ping": {"median": 0.5}}
    results = {"quick": True, "machine": {"load_average": [1.0, 2.0, 3.0]}, "figures": figures}
    (tmp_path / "results" / "scale.json").write_text(json.dumps(results), encoding="utf-8")
    old = "50 instances forks 10, no-op / ping, runtime-only venv"
    new = "50 instances forks 10, no-op in-process / ping, runtime-only venv"
    (tmp_path / "baselines" / "scale.json").write_text(json.dumps({"figures": {old: 1.47}}), encoding="utf-8")
    baseline = json.loads(regression.update("scale", only_new=True).read_text(encoding="utf-8"))
    assert baseline["figures"] == {old: 1.47, new: 0.5}
    assert baseline["added"] == {new: {"quick": True, "load_average": [1.0, 2.0, 3.0]}}


def test_worker_profile_counts_a_function_under_its_package() -> None:
    """bench/worker_profile.py: a profiled function's file names its package (the self-time table's rows)."""
    site = "/venv/lib/python3.13/site-packages"
    assert worker_profile.package_of("/repo/.collections/ansible_collections/nubes/cloud/plugins/x.py") == "nubes.cloud"
    assert worker_profile.package_of(f"{site}/ansible/executor/task_executor.py") == "ansible-core"
    assert worker_profile.package_of(f"{site}/httpcore/_sync/connection.py") == "httpx and its deps"
    assert worker_profile.package_of("~") == "built-in functions (C)"
    assert worker_profile.package_of("/usr/lib/python3.13/json/decoder.py") == "stdlib and other"
