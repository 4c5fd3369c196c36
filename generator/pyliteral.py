"""Python literals in the style ``ruff format`` keeps as is (exploded, magic trailing commas, double quotes)."""

from __future__ import annotations

from typing import Any

LINE_LIMIT = 120
CHUNK = 80
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(text: str) -> str:
    """A string literal: double quotes unless the text has more double than single quotes (ruff's rule)."""
    mark = "'" if text.count('"') > text.count("'") else '"'
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char == mark:
            out.append("\\" + char)
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return mark + "".join(out) + mark


def _string(text: str, indent: int, used: int) -> str:
    """A string, split into a parenthesised implicit concatenation when the line would pass the limit."""
    single = quote(text)
    if used + len(single) + 1 <= LINE_LIMIT:
        return single
    pad = " " * (indent + 4)
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    return "(\n" + "".join(f"{pad}{quote(c)}\n" for c in chunks) + " " * indent + ")"


def literal(value: Any, indent: int = 0, used: int = 0) -> str:
    """``value`` (dict/list/str/int/bool/None) as Python source; ``used`` = columns before it on its line."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        pad = " " * (indent + 4)
        lines = []
        for key, item in value.items():
            head = f"{pad}{quote(str(key))}: "
            lines.append(head + literal(item, indent + 4, len(head)) + ",\n")
        return "{\n" + "".join(lines) + " " * indent + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        pad = " " * (indent + 4)
        return "[\n" + "".join(f"{pad}{literal(v, indent + 4, len(pad))},\n" for v in value) + " " * indent + "]"
    if isinstance(value, str):
        return _string(value, indent, used)
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} as a Python literal")
