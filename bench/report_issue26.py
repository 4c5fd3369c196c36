"""The six target rows of issue 26 in docs/benchmarks.md, used by report.py: every one measured in the controller's
process (the default path of a local task), with the module path's figure of the same run beside it.

Each row is built from its area's results (bench/results/<area>.json); a target whose area has not measured the
in-process figure yet keeps a row that says so (`placeholders`), so all six are always on the page.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

PREFIX = "issue 26: "
CLOUD = (
    PREFIX + "10 no-op cloud tasks in the controller's process <= 0.4x 10 `ansible.builtin.ping` tasks (wall and CPU)"
)
COMPONENT_TASK = (
    PREFIX + "a no-op component task (300 objects) in the controller's process above a one-`debug`-task playbook"
    " <= +0.3 s"
)
SCALE = (
    PREFIX + "50 instances at forks 10: no-op in the controller's process <= 0.6x the same `ansible.builtin.ping` run"
)
PARALLEL = (
    PREFIX + "three 6 s creates (`wait: false`) + one `operation_info`, in the controller's process, <= 1.1x one create"
)
COMPONENT_K8S = (
    PREFIX + "component no-op re-apply of 300 objects in the controller's process <= 0.3x one `kubernetes.core.k8s`"
    " task"
)
OPERATOR = (
    PREFIX + "operator set (~60 objects) no-op and check+diff in the controller's process <= 0.7x the pinned kubectl"
)
# The first words of each area's rows (report.py's AREA_TARGETS adds them to the area's own).
AREA_PREFIXES = {
    "inprocess": (PREFIX + "10 no-op", PREFIX + "a no-op component"),
    "scale": (PREFIX + "50 instances",),
    "parallel": (PREFIX + "three ",),
    "component": (PREFIX + "component ", PREFIX + "operator set"),
}

PHASES = ("no-op", "check+diff")  # of the operator set
TARGETS = {"noop_inprocess_vs_ping": 0.6, "parallel_over_one_inprocess": 1.1}  # the ratios' targets
Figure = Tuple[str, Optional[bool]]  # (the measured text, met or not; None: not measured)


def _median(data: Any, *keys: Any) -> Optional[float]:
    """The median at a key path (an int key picks the size of that many objects in `sizes`), or None."""
    value = data
    for key in keys:
        if isinstance(key, int):
            value = next((s for s in (value or []) if s.get("objects") == key), None)
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value.get("median") if isinstance(value, dict) else None


def _x(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _with_dev(area: Dict[str, Any], key: str, module_key: str) -> Figure:
    """A runtime-only venv ratio (the headline), the dev venv's beside it, and the module path's (both venvs)."""
    ratio = _median(area, "figures", key)
    if ratio is None:
        return "", None
    dev = _median(area, "dev", "figures", key)
    text = _x(ratio) + (f" (dev venv {_x(dev)})" if dev is not None else "")
    module = _median(area, "figures", module_key)
    if module is not None:
        module_dev = _median(area, "dev", "figures", module_key)
        text += f"; as modules {_x(module)}" + (f" (dev venv {_x(module_dev)})" if module_dev is not None else "")
    return text, ratio <= TARGETS[key]


def cloud(area: Dict[str, Any]) -> Figure:
    wall, cpu = (_median(area, "cloud", "figures", f"no-op in-process / ping ({k})") for k in ("wall", "cpu"))
    if wall is None or cpu is None:
        return "", None
    module = _median(area, "cloud", "figures", "no-op module / ping (wall)")
    return f"wall {_x(wall)}, CPU {_x(cpu)} (as modules: wall {_x(module)})", wall <= 0.4 and cpu <= 0.4


def component_task(area: Dict[str, Any]) -> Figure:
    figures = ("component", "figures")
    wall = _median(area, *figures, "component no-op in-process over debug (wall, s)")
    if wall is None:
        return "", None
    cpu = _median(area, *figures, "component no-op in-process over debug (cpu, s)")
    module = _median(area, *figures, "component no-op module over debug (wall, s)")
    cpu_text = "n/a" if cpu is None else f"+{cpu:.2f} s"
    module_text = "n/a" if module is None else f"+{module:.2f} s"
    return f"+{wall:.2f} s wall, {cpu_text} CPU (as a module: {module_text} wall)", wall <= 0.3


def scale(area: Dict[str, Any]) -> Figure:
    return _with_dev(area, "noop_inprocess_vs_ping", "noop_vs_ping")


def parallel(area: Dict[str, Any]) -> Figure:
    return _with_dev(area, "parallel_over_one_inprocess", "parallel_over_one")


def component_k8s(area: Dict[str, Any]) -> Figure:
    ratio = _median(area, "sizes", 300, "ratios", "component (in-process)/k8s no-op re-apply")
    if ratio is None:
        return "", None
    module = _median(area, "sizes", 300, "ratios", "component/k8s no-op re-apply")
    return _x(ratio) + (f" (as a module: {_x(module)})" if module is not None else ""), ratio <= 0.3


def operator(area: Dict[str, Any]) -> Figure:
    ratios = [_median(area, "operator_set", "ratios", f"component (in-process)/kubectl {p}") for p in PHASES]
    if None in ratios:
        return "", None
    module = [_median(area, "operator_set", "ratios", f"component/kubectl {phase}") for phase in PHASES]
    text = f"no-op {_x(ratios[0])}, check+diff {_x(ratios[1])}"
    if None not in module:
        text += f" (as a module: {_x(module[0])} / {_x(module[1])})"
    return text, all(r is not None and r <= 0.7 for r in ratios)


ROWS: List[Tuple[str, str, str, Callable[[Dict[str, Any]], Figure]]] = [  # (label, area, how to measure, row)
    (CLOUD, "inprocess", "make bench-inprocess", cloud),
    (COMPONENT_TASK, "inprocess", "make bench-inprocess", component_task),
    (SCALE, "scale", "make bench-scale", scale),
    (PARALLEL, "parallel", "make bench-parallel", parallel),
    (COMPONENT_K8S, "component", "make bench-component-compare", component_k8s),
    (OPERATOR, "component", "make bench-component-compare", operator),
]


def _ok(flag: Optional[bool]) -> str:
    return "n/a" if flag is None else ("met" if flag else "**missed**")


def targets(data: Dict[str, Dict[str, Any]]) -> List[List[str]]:
    """The rows of the targets whose area is in `data` and measured the in-process figure."""
    rows = []
    for label, area, _how, row in ROWS:
        if area in data:
            text, flag = row(data[area])
            if flag is not None:
                rows.append([label, text, _ok(flag)])
    return rows


def placeholders(present: List[str]) -> List[List[str]]:
    """A row for each target not among `present` (the first cells of the table's rows): not measured yet."""
    return [
        [label, f"not measured in the controller's process yet (`{how}`)", "n/a"]
        for label, _area, how, _row in ROWS
        if label not in present
    ]
