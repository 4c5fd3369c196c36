# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module's main() called in the controller's worker process, as its own process would run it (issue 26).

`call_main` gives AnsibleModule what AnsiballZ gives it in a module process (the arguments in
`basic._ANSIBLE_ARGS`, empty warning lists, the task's environment) and takes back the exit code, stdout and stderr;
afterwards the worker gets back what the module changed (environment, locale, working directory, those globals).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import locale
import os
import sys
import traceback

from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import sealed
from ansible_collections.nubes.cloud.plugins.plugin_utils import execution_path

COLLECTION = "nubes.cloud."
MODULES_PACKAGE = "ansible_collections.nubes.cloud.plugins.modules."
PROFILE = "legacy"  # ansible-core 2.19+: the serialization profile of a module without METADATA (all of ours)
# The optional dependency each module imports behind a guard (the guarding module_utils file, its flag, the
# dependency): the component's kube transport needs urllib3, every other module the cloud core's API client httpx.
# Only a module's own guard counts: since the preload (preload.py) the worker holds the other modules' guards too.
UTILS = "ansible_collections.nubes.cloud.plugins.module_utils."
CLOUD_GUARD = (UTILS + "nubes.client", "HAS_HTTPX", "httpx")
GUARDS = {"nubes.cloud.component": (UTILS + "kube.transport", "HAS_URLLIB3", "urllib3")}


def import_main(name):
    """(the module's main, None), or (None, why not): a dependency of the module missing on the controller."""
    if not name.startswith(COLLECTION):
        return None, f"{name} is not a nubes.cloud module name"
    try:
        module = importlib.import_module(MODULES_PACKAGE + name[len(COLLECTION) :])
    except ImportError as exc:
        return None, execution_path.missing_dependency(exc.name or str(exc))
    if getattr(module, "IMPORT_ERROR", None):  # a module that imports its helpers behind a guard (component)
        return None, execution_path.missing_dependency(str(module.IMPORT_ERROR).strip().splitlines()[-1])
    guard, flag, dependency = GUARDS.get(name, CLOUD_GUARD)
    imported = sys.modules.get(guard)
    if imported is not None and not getattr(imported, flag, True):  # the module_utils import it behind a guard
        return None, execution_path.missing_dependency(dependency)
    return module.main, None


def encode_module_args(module_args):
    """The module's arguments as AnsiballZ hands them to the module (bytes of JSON, in memory only)."""
    params = {"ANSIBLE_MODULE_ARGS": module_args}
    try:
        from ansible.module_utils.common.json import Direction, get_module_encoder  # ansible-core 2.19+
    except ImportError:
        from ansible.parsing.ajson import AnsibleJSONEncoder

        return json.dumps(params, cls=AnsibleJSONEncoder, vault_to_text=True).encode("utf-8", "surrogateescape")
    encoder = get_module_encoder(PROFILE, Direction.CONTROLLER_TO_MODULE)
    return json.dumps(params, cls=encoder).encode("utf-8", "surrogateescape")


def call_main(main, payload, environment):
    """Run a module's main() here: (exit code, stdout, stderr) as the module process would have given them."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with module_process(payload, environment), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            main()
            rc = 0
            print("nubes.cloud: the module's main() returned without a result", file=sys.stderr)
        except SystemExit as exc:  # exit_json / fail_json end the module with sys.exit
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # pylint: disable=broad-exception-caught  # a crash is a MODULE FAILURE, as on the module path
            rc = 1
            traceback.print_exc()
    return rc, stdout.getvalue(), stderr.getvalue()


@contextlib.contextmanager
def module_process(payload, environment):
    """What a module process has and the worker must get back afterwards: the module arguments in
    `basic._ANSIBLE_ARGS`, empty module warning lists, the task's environment (without the sealing key: nothing is
    sealed in-process), the locale AnsibleModule sets and the working directory."""
    saved_args = basic._ANSIBLE_ARGS
    saved_profile = getattr(basic, "_ANSIBLE_PROFILE", None)
    saved_environ = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_locale = locale.setlocale(locale.LC_ALL)
    lists = [getattr(module_warnings, n) for n in ("_global_warnings", "_global_deprecations")]
    saved_lists = [container.copy() for container in lists]
    basic._ANSIBLE_ARGS = payload
    if hasattr(basic, "_ANSIBLE_PROFILE"):
        basic._ANSIBLE_PROFILE = PROFILE
    for container in lists:
        container.clear()
    os.environ.update({str(key): str(value) for key, value in environment.items()})
    os.environ.pop(sealed.ENV, None)
    try:
        yield
    finally:
        basic._ANSIBLE_ARGS = saved_args
        if hasattr(basic, "_ANSIBLE_PROFILE"):
            basic._ANSIBLE_PROFILE = saved_profile
        for container, saved in zip(lists, saved_lists):
            container.clear()
            if isinstance(container, dict):
                container.update(saved)
            else:
                container.extend(saved)
        os.environ.clear()
        os.environ.update(saved_environ)
        with contextlib.suppress(OSError):
            os.chdir(saved_cwd)
        with contextlib.suppress(locale.Error):
            locale.setlocale(locale.LC_ALL, saved_locale)
