"""Call a generated module in-process through its real AnsibleModule entry point (`main()`).

`patch_module_args` hands the arguments to AnsibleModule exactly as ansible-playbook would (types checked,
no_log applied); exit_json / fail_json end in SystemExit after printing the result JSON, which is captured.
Anything else escaping `main()` is a crash (a traceback instead of a clean fail_json).
"""

from __future__ import annotations

import contextlib
import io
import json
from types import ModuleType
from typing import Any

from tests.ansible_compat import patch_module_args


class ModuleCrash(AssertionError):
    """The module raised instead of calling exit_json / fail_json."""


def call_module(module: ModuleType, args: dict[str, Any], check_mode: bool = False) -> dict[str, Any]:
    """Run `module.main()` with `args`; returns the JSON it printed (exit_json or fail_json)."""
    full = dict(args)
    if check_mode:
        full["_ansible_check_mode"] = True
    out = io.StringIO()
    with patch_module_args(full), contextlib.redirect_stdout(out):
        try:
            module.main()
        except SystemExit:
            pass
        except BaseException as exc:  # any escape is the defect this harness reports
            raise ModuleCrash(f"{module.__name__} raised {type(exc).__name__}: {exc}") from exc
    text = out.getvalue().strip()
    if not text:
        raise ModuleCrash(f"{module.__name__} printed nothing")
    return dict(json.loads(text.splitlines()[-1]))
