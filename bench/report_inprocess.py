"""The section of docs/benchmarks.md for bench/inprocess_bench.py (issue 26), used by report.py; its target rows are in
report_issue26.py."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

TITLE = "## In the controller's process vs as a module (issue 26)"


def _span(stat: Optional[Dict[str, Any]], unit: str = "", digits: int = 2) -> str:
    if not stat or stat.get("median") is None:
        return "n/a"
    text = f"{stat['median']:.{digits}f}{unit}"
    if stat.get("runs", 0) > 1:
        text += f" ({stat['min']:.{digits}f}\u2013{stat['max']:.{digits}f})"
    return text


def inprocess_section(data: Dict[str, Any]) -> str:
    out = [
        f"{TITLE}\n\n"
        "`bench/inprocess_bench.py`: whole `ansible-playbook` runs in turn, the order rotated each round, on both"
        " execution paths (`NUBES_EXECUTION=module` forces the module path; a local target runs in the controller's"
        " process by default,"
        " [using-modules](using-modules.md#where-a-task-runs-in-the-controllers-process-or-as-a-module))."
        " Wall and CPU seconds (user + system of `ansible-playbook` and everything it ran). The tasks' own cost is"
        " each run minus the baseline playbook of the same round; ratios are taken per round.\n"
    ]
    cloud = data.get("cloud")
    if cloud:
        f = cloud["figures"]
        rows = [
            [
                f"{cloud['tasks']} {label}",
                _span(f.get(f"{key} tasks (wall, s)"), " s"),
                _span(f.get(f"{key} tasks (cpu, s)"), " s"),
                "1" if key == "ping" else _span(f.get(f"{key} / ping (wall)"), "x"),
                "1" if key == "ping" else _span(f.get(f"{key} / ping (cpu)"), "x"),
            ]
            for label, key in (
                ("`ansible.builtin.ping` tasks", "ping"),
                ("no-op `nubes.cloud.dummy` tasks, in the controller's process", "no-op in-process"),
                ("no-op `nubes.cloud.dummy` tasks, as modules", "no-op module"),
            )
        ]
        out.append(
            "\n### 10 no-op cloud tasks vs 10 `ansible.builtin.ping` tasks\n\n"
            "Above the same play without tasks (its own median: "
            + _span(cloud["playbooks"]["baseline"]["wall"], " s")
            + " wall, "
            + _span(cloud["playbooks"]["baseline"]["cpu"], " s")
            + " CPU).\n\n"
            + _table(["tasks", "wall", "CPU", "wall / ping", "CPU / ping"], rows)
        )
    comp = data.get("component")
    if comp:
        f = comp["figures"]
        rows = [
            [
                f"no-op `nubes.cloud.component` ({comp['objects']} objects), {where}",
                "+" + _span(f.get(f"component no-op {path} over debug (wall, s)"), " s"),
                "+" + _span(f.get(f"component no-op {path} over debug (cpu, s)"), " s"),
            ]
            for path, where in (("in-process", "in the controller's process"), ("module", "as a module"))
        ]
        out.append(
            "\n### A no-op component task vs an `ansible.builtin.debug` task\n\n"
            "One-task playbooks; the component's time above the one-`debug`-task playbook of the same round (its own"
            " median: "
            + _span(comp["playbooks"]["debug"]["wall"], " s")
            + " wall).\n\n"
            + _table(["task", "wall above debug", "CPU above debug"], rows)
        )
    if data.get("profile"):
        out.append(profile_section(data["profile"]))
    return "".join(out)


def _table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


WORKERS = (  # (part of the profile, action, what the row calls it)
    ("cloud", "ansible.builtin.debug", "`ansible.builtin.debug` (any task's worker)"),
    ("cloud", "nubes.cloud.dummy", "no-op `nubes.cloud.dummy`, in the controller's process"),
    ("component", "nubes.cloud.component", "no-op `nubes.cloud.component` (300 objects), in the controller's process"),
)
TOP_ROWS = 12


def profile_section(profile: Dict[str, Any]) -> str:
    """Where an in-process task's time goes, in its worker (bench/worker_profile.py)."""
    workers = [(label, profile[part][action]) for part, action, label in WORKERS if action in profile.get(part, {})]
    rows = [
        [
            label,
            _span(w["cpu_seconds"], " s", 3),
            _span(w["wall_seconds"], " s", 3),
            _span(w["modules_imported"], "", 0),
            str(sum(1 for name in w["imported_by_the_last_worker"] if name.startswith("ansible_collections.nubes."))),
        ]
        for label, w in workers
    ]
    out = [
        "\n### Where an in-process task's time goes: the task's worker process\n\n"
        "The worker process ansible-core forks for each task, measured from inside by `bench/worker_probe` (a"
        " `sitecustomize` on the bench's PYTHONPATH only; `bench/worker_profile.py`): its CPU seconds (user + system"
        " of the whole worker, from the fork to the result), its wall seconds, and how many modules it imported"
        " itself rather than inheriting them from `ansible-playbook`'s main process. The self-time and function"
        " tables come from a second run under cProfile, per task: its clock is the wall clock, so waiting for an answer"
        " counts in the function that waits (a socket read), and its own overhead is included.\n\n"
        + _table(["task", "worker CPU", "worker wall", "modules the worker imports", "of them nubes.cloud's"], rows)
    ]
    packages = sorted({p for _label, w in workers for p in w.get("profile", {}).get("self_seconds_by_package", {})})
    if packages:
        rows = [
            [
                package,
                *(_seconds(w.get("profile", {}).get("self_seconds_by_package", {}).get(package)) for _l, w in workers),
            ]
            for package in packages
        ]
        out.append("\nSelf time in the worker by package (cProfile, seconds per task):\n\n")
        out.append(_table(["package", *(label for label, _w in workers)], rows))
    for label, w in workers[1:]:
        top = w.get("profile", {}).get("top_cumulative", [])[:TOP_ROWS]
        if top:
            out.append(f"\nThe functions with the most cumulative time, {label} (cProfile, seconds per task):\n\n")
            out.append(
                _table(
                    ["function", "cumulative", "calls"],
                    [[f"`{t['function']}`", _seconds(t["seconds"]), f"{t['calls']:g}"] for t in top],
                )
            )
    calls = profile.get("component", {}).get("api_calls_of_a_no_op")
    if calls:
        out.append(f"\nAPI calls of a no-op component task (300 objects), from its result: `{calls}`.\n")
    return "".join(out)


def _seconds(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.3f} s"
