"""Which API defaults are portal placeholders (issue 23): one rule, applied to every default of every service.

The portal pre-fills some fields with a sample of what the user is meant to type: a host name (`web01`), a login
(`myuser`), an e-mail list (`testuser1`), somebody's test repository, an environment `{ "param": "value" }`. Such a
default is no value to apply unasked: two apps would share the subdomain `web01`, an app would build somebody's
test repository, every app would get the variable `param`. The spec keeps it (P1: API data only) as `placeholder`
with `default: null`, so the core never sends it (P35: a param without a default gets its type's zero value, or,
when the create requires it, the task must give it).

The rule: **a default is a placeholder when its param takes free text (type string or json, no `choices`, no
`refSvcId`) and the default is sample text**: one of its words starts with a sample word (`test`, `example`,
`sample`, `demo`, `param`, or `my` followed by a word), or the default is a name numbered as the first of a series
(letters, then a counter ending in 1: `web01`, `user1`). Words are the runs of letters.

Evidence (every default of the live catalogue, `../shared/reference/live-catalogue/`, and the emulator's): the rule
finds `domain` `web01` (superset, harbor, flask, lucee, nodejs, pgadmin, gitea), vc_vm_v3 `vmName` `web01` and
`userLogin` `myuser`, `emails` `testuser1` (superset, harbor), `gitPath` (flask `.../Baldurs-Gate-test.git`, lucee
`.../testlucee`, nodejs `.../testnode.git`) and `jsonEnv` `{ "param": "value" }` (flask, lucee). It leaves every
other default a setting: numbers (`500`, `-1`, `5432` as text), booleans, versions (`17`, `9.4.0`, `5.4`), cron
schedules (`0 0 * * *`), `{}`, postgres `jsonParameters` (`log_connections: off`: real settings), vc_vm_v3
`accessPortList` `["22"]` and `ipSpaceName` `no-needed` (the portal's "no IP space" choice), words with choices
(`HOT`, `vdc`, `readwrite`, `off`, `A`) and the emulator's `vcd`, `standard`, `UTF8`.
`tests/unit/generator/test_gen_placeholders.py` runs the rule on the real specs and asserts this very list.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

FREE_TEXT_TYPES: tuple[str, ...] = ("string", "json")
SAMPLE_WORD = re.compile(r"(?<![a-z])(?:test|example|sample|demo|param|my(?=[a-z]))", re.IGNORECASE)
FIRST_OF_SERIES = re.compile(r"(?<![a-z0-9])[a-z]+0*1(?![a-z0-9])", re.IGNORECASE)


def is_sample_text(text: str) -> bool:
    """Whether `text` is sample text: a word starting with a sample word, or a name numbered first of a series."""
    return bool(SAMPLE_WORD.search(text) or FIRST_OF_SERIES.search(text))


def is_placeholder(
    data_type: str, default: Optional[str], choices: Optional[Sequence[str]], ref_service_id: Optional[int]
) -> bool:
    """The rule (module docstring): a free-text param whose API default is sample text."""
    if default is None or data_type not in FREE_TEXT_TYPES or choices or ref_service_id is not None:
        return False
    return is_sample_text(default)
