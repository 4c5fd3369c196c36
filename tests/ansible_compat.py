"""What the tests need from ansible-core, on every supported version (config/ansible_core_versions.txt)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core < 2.19 has no public helper: set the args AnsibleModule reads

    @contextlib.contextmanager
    def patch_module_args(args: dict[str, Any] | None = None) -> Iterator[None]:
        """Hand `args` to the next AnsibleModule, as ansible-core 2.19+'s helper of the same name does."""
        from ansible.module_utils import basic

        saved = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args or {}}).encode("utf-8")
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = saved


__all__ = ["patch_module_args"]
