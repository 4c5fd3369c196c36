"""Hypothesis strategies for hostile module arguments: wrong types, unicode, huge strings, nested structures and
strings that look like injections (Jinja, shell, SQL, path traversal, JSON/YAML fragments, NUL bytes)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from hypothesis import strategies as st

INJECTIONS = (
    "{{ lookup('pipe', 'id') }}",
    "{% for x in range(9) %}{{ x }}{% endfor %}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "$(touch /tmp/nubes-pwned)",
    "`id`; rm -rf /",
    "'; DROP TABLE instances; --",
    "../../../../etc/passwd",
    '{"__proto__": {"admin": true}}',
    "!!python/object/apply:os.system ['id']",
    "\x00\x01\x02",
    "\u202etxt.exe",
    "null",
    "true",
    "-1",
    "1e309",
    "[]",
    "{}",
    "",
    " ",
)
# Options never fuzzed: where the module connects and where it writes its state (the test's own emulator and temp
# file), `wait` (kept off so each example stays short) and the dummy's switches that make the API fail or run
# long on purpose (valid input whose failure after a write is the expected behaviour).
FIXED_OPTIONS = frozenset(
    {
        "api_endpoint",
        "api_token",
        "state_path",
        "state_backend",
        "state_namespace",
        "state_kubeconfig",
        "state_context",
        "wait",
        "fail_at_start",
        "fail_in_progress",
        "where_fail",
        "duration_ms",
    }
)

# A tiny positive request_timeout is valid input that can time out reading the answer to a write the API already
# took (the failure after a write that P35-P38 do not forbid; the reliability tests of interrupted writes cover
# it). It is fuzzed with what must be refused before any request (zero, negative, NaN, infinity, too large, any
# other type) and with timeouts a write can finish within.
request_timeouts = st.one_of(
    st.floats(max_value=0.0),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e12]),
    st.floats(min_value=10.0, max_value=600.0),
    st.integers(min_value=-(2**63), max_value=0),
    st.booleans(),
    st.text(max_size=20),
    st.lists(st.none(), max_size=2),
)

safe_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)
huge_text = st.builds(lambda char, n: char * n, st.sampled_from(["A", "я", "😀", "\\", '"']), st.integers(1000, 70000))
hostile_text = st.one_of(safe_text, st.sampled_from(INJECTIONS), huge_text)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
)
any_value = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(safe_text, children, max_size=4),
    max_leaves=8,
)


def typed_value(spec: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the option's declared type (so inputs get past AnsibleModule into the core's own checks)."""
    kind = spec.get("type", "str")
    if spec.get("choices"):
        return st.sampled_from(list(spec["choices"]))
    if kind == "int":
        return st.integers(min_value=-(2**63), max_value=2**63)
    if kind == "bool":
        return st.booleans()
    if kind == "float":
        return st.floats(allow_nan=True, allow_infinity=True)
    if kind == "list":
        if spec.get("options"):
            return st.lists(options_dict(spec["options"]), max_size=3)
        return st.lists(hostile_text, max_size=3)
    if kind == "dict" and spec.get("options"):
        return options_dict(spec["options"])
    if kind in ("dict", "raw"):
        return any_value
    return hostile_text


def options_dict(options: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    keys = sorted(options)
    return st.fixed_dictionaries({}, optional={k: st.one_of(typed_value(options[k]), any_value) for k in keys})


def module_arguments(
    module: ModuleType, common: dict[str, Any], typed_only: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    """A random subset of the module's options (its ARGUMENT_SPEC and the common ones), each of its declared type
    with hostile content, or (unless `typed_only`) any hostile value of any type."""
    options = {**common, **module.ARGUMENT_SPEC}
    names = sorted(name for name in options if name not in FIXED_OPTIONS)
    if typed_only:
        return st.fixed_dictionaries({}, optional={name: _typed_value_of(name, options[name]) for name in names})
    return st.fixed_dictionaries({}, optional={name: _any_value_of(name, options[name]) for name in names})


def _typed_value_of(name: str, spec: dict[str, Any]) -> st.SearchStrategy[Any]:
    return request_timeouts if name == "request_timeout" else typed_value(spec)


def _any_value_of(name: str, spec: dict[str, Any]) -> st.SearchStrategy[Any]:
    return request_timeouts if name == "request_timeout" else st.one_of(typed_value(spec), any_value)
