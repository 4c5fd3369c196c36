# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running kustomize: ``kubectl kustomize`` or ``kustomize build``, whichever the host has.

A kustomize source is built *in place*, where its files are, so overlays that reference ``../base`` (or any
other directory of the tree) resolve as they do for kubectl. Rendered templates with a kustomization are written
to a temporary directory first (they exist only in memory), so they must be self-contained.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError, SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import parse_manifests

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def has_kustomization(directory: str) -> bool:
    """Does the directory hold a kustomization file?"""
    return any(os.path.isfile(os.path.join(directory, name)) for name in KUSTOMIZATION_FILES)


def kustomize_command() -> List[str]:
    """``kubectl kustomize`` or ``kustomize build``, whichever exists."""
    kubectl = shutil.which("kubectl")
    if kubectl:
        return [kubectl, "kustomize"]
    kustomize = shutil.which("kustomize")
    if kustomize:
        return [kustomize, "build"]
    raise SourceError(
        "the source has a kustomization.yaml but neither kubectl nor kustomize is on the PATH of the host that "
        "builds it (the controller for a source given to the task); install one of them "
        "(https://kubectl.docs.kubernetes.io/installation/)"
    )


def build_in_place(directory: str, run_command: CommandRunner, command: Optional[Sequence[str]] = None) -> str:
    """The YAML that kustomize builds from ``directory`` (where it is: ``../base`` references resolve)."""
    argv = list(command) if command else kustomize_command()
    returncode, stdout, stderr = run_command([*argv, directory], None)
    if returncode != 0:
        raise SourceError(f"kustomize build of {directory} failed: {stderr.strip()}")
    return stdout


def build_files(
    outputs: Mapping[str, str], run_command: Optional[CommandRunner], command: Optional[Sequence[str]] = None
) -> List[Dict[str, Any]]:
    """Write rendered files to a temporary directory and build it with kustomize (``run_command`` runs it)."""
    if run_command is None:
        raise RenderError("kustomize sources need a command runner (the module passes module_runner(module))")
    with tempfile.TemporaryDirectory(prefix="nubes-component-") as workdir:
        for relative, text in outputs.items():
            target = os.path.join(workdir, *relative.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
        try:
            built = build_in_place(workdir, run_command, command)
        except SourceError as exc:
            raise RenderError(
                str(exc).replace(workdir, "<rendered templates>")
                + "; rendered templates are built in a temporary directory, so they cannot reference files outside "
                "the source (use source_kind kustomize to build a tree in place)"
            ) from None
    return parse_manifests(built, "kustomize output")
