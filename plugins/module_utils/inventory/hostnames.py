# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory host names from display names: safe in host patterns, unique, stable for the oldest instance.

- Display names are free text (spaces, commas, colons, brackets, Cyrillic) and the API does not keep them
  unique (the seed: "Nubes API does not enforce unique displayName per serviceId"; deleted instances keep
  theirs). Ansible splits host patterns on `,` and `:`, expands `[a:b]`, treats `*`/`?` as wildcards and a
  leading `!`/`&`/`~` as operators, so every character other than a letter, a digit, `_`, `.` or `-` becomes `_`.
- A name that is empty after that, or one of Ansible's implicit localhost names, is replaced by the uid.
- Two instances that would get the same name: the oldest (the API lists oldest first) keeps it, every later one
  gets `-<first 8 hex digits of its uid>` appended (the full uid in the unlikely case that is taken too), so an
  existing host does not change its name when a duplicate appears.
"""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple

UNSAFE_HOST_CHARACTERS = re.compile(r"[^\w.-]")
LOCALHOST_NAMES = frozenset(("localhost", "127.0.0.1", "::1"))


def safe_hostname(name: str, uid: str) -> str:
    """`name` with every character Ansible host patterns would misread replaced by `_`; the uid when nothing
    usable is left or the name would stand for the controller itself."""
    raw = (name or "").strip()
    text = UNSAFE_HOST_CHARACTERS.sub("_", raw)
    if not text.strip("_.-") or raw.lower() in LOCALHOST_NAMES:
        return uid
    return text


def unique_hostnames(wanted: Sequence[Tuple[str, str]]) -> Tuple[List[str], List[str]]:
    """For (safe name, uid) pairs, oldest first: the host names to use, and the names that were taken twice."""
    taken: set = set()
    names: List[str] = []
    clashes: List[str] = []
    for name, uid in wanted:
        chosen = name
        if chosen in taken:
            clashes.append(name)
            chosen = f"{name}-{uid[:8].lower()}"
            if chosen in taken:
                chosen = f"{name}-{uid.lower()}"
        taken.add(chosen)
        names.append(chosen)
    return names, sorted(set(clashes))
