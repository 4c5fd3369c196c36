"""The section and target rows of docs/benchmarks.md for bench/inprocess_bench.py (issue 26), used by report.py."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

TITLE = "## In the controller's process vs as a module (issue 26)"
CLOUD_TARGET = 0.4  # 10 no-op cloud tasks / 10 ansible.builtin.ping tasks, wall and CPU
COMPONENT_TARGET = 0.3  # seconds a no-op component task may add to a one-debug-task playbook
PATHS = ("in-process", "module")


def _median(stat: Optional[Dict[str, Any]]) -> Optional[float]:
    return None if not stat else stat.get("median")


def _num(value: Optional[float], digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _span(stat: Optional[Dict[str, Any]], unit: str = "", digits: int = 2) -> str:
    if not stat or stat.get("median") is None:
        return "n/a"
    text = f"{stat['median']:.{digits}f}{unit}"
    if stat.get("runs", 0) > 1:
        text += f" ({stat['min']:.{digits}f}\u2013{stat['max']:.{digits}f})"
    return text


def _ok(flag: Optional[bool]) -> str:
    return "n/a" if flag is None else ("met" if flag else "**missed**")


def inprocess_targets(data: Dict[str, Any]) -> List[List[str]]:
    rows: List[List[str]] = []
    cloud = data.get("cloud", {}).get("figures", {})
    if cloud:
        wall, cpu = (_median(cloud.get(f"no-op in-process / ping ({key})")) for key in ("wall", "cpu"))
        module_wall = _median(cloud.get("no-op module / ping (wall)"))
        rows.append(
            [
                f"in-process: 10 no-op cloud tasks <= {CLOUD_TARGET}x 10 `ansible.builtin.ping` tasks (wall and CPU)",
                f"wall {_num(wall)}x, CPU {_num(cpu)}x (as modules: wall {_num(module_wall)}x)",
                _ok(None if wall is None or cpu is None else wall <= CLOUD_TARGET and cpu <= CLOUD_TARGET),
            ]
        )
    comp = data.get("component", {}).get("figures", {})
    if comp:
        wall = _median(comp.get("component no-op in-process over debug (wall, s)"))
        module_wall = _median(comp.get("component no-op module over debug (wall, s)"))
        rows.append(
            [
                f"in-process: a no-op component task above a one-`debug`-task playbook <= +{COMPONENT_TARGET} s"
                f" ({data['component'].get('objects', 300)} objects)",
                f"+{_num(wall)} s (as a module: +{_num(module_wall)} s)",
                _ok(None if wall is None else wall <= COMPONENT_TARGET),
            ]
        )
    return rows


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
    return "".join(out)


def _table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
