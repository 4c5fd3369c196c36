"""Tests of the benchmark tooling itself (run by `make bench`, not by `make test`): the poll schedules the latency
figures are compared with, the statistics, the kubectl request counter and the report's merge into
docs/benchmarks.md. No timing is asserted here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import component_compare
import poll_simulation
import report
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
