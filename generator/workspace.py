"""The generator's files on disk: where specs and generated files live, reading, writing, stale detection."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.config import ServiceEntry, Timeouts, load_requires_ansible, load_services_list, load_timeouts
from generator.english import ENGLISH_PATH, English, load_english
from generator.examples import EXAMPLES_PATH, ExampleValues, load_examples
from generator.render import (
    ACTION_DIR,
    DOCS_MAN_DIR,
    DOCS_MODULES_DIR,
    MARKER,
    MODULES_DIR,
    SERVICES_DIR,
    spec_path,
)

GENERATED_MARK = f"{MARKER} by `python -m generator"
# Directories whose generated files the generator owns; a generated file here that the specs no longer
# produce is stale (P47). Hand-written files (without the mark) are left alone.
OWNED_GLOBS: tuple[str, ...] = (
    "specs/*.yml",
    f"{MODULES_DIR}/*.py",
    f"{MODULES_DIR}/*.yml",
    f"{SERVICES_DIR}/*.py",
    f"{ACTION_DIR}/*.py",
    f"{DOCS_MODULES_DIR}/*.md",
    f"{DOCS_MAN_DIR}/*.md",
)


@dataclass(frozen=True)
class Workspace:
    """A checkout of the collection (the repo root)."""

    root: Path

    @property
    def services_list(self) -> Path:
        return self.root / "config" / "services_list.txt"

    @property
    def timeouts_file(self) -> Path:
        return self.root / "config" / "operation_timeouts.json"

    @property
    def core_versions_file(self) -> Path:
        return self.root / "config" / "ansible_core_versions.txt"

    def english(self) -> English:
        """The English texts of every param, output and service (config/english.yml, issue 27)."""
        return load_english(self.root / ENGLISH_PATH)

    def example_values(self) -> ExampleValues:
        """The values of the modules' EXAMPLES (config/examples.yml, issue 27)."""
        return load_examples(self.root / EXAMPLES_PATH)

    def requires_ansible(self) -> str:
        """meta/runtime.yml's requires_ansible: the oldest supported ansible-core (config/ansible_core_versions.txt)."""
        return load_requires_ansible(self.core_versions_file)

    def entries(self) -> list[ServiceEntry]:
        return load_services_list(self.services_list)

    def timeouts(self) -> Timeouts:
        return load_timeouts(self.timeouts_file)

    def spec_file(self, name: str) -> Path:
        return self.root / spec_path(name)

    def read(self, relative: str) -> str | None:
        """A file's text, or None when it does not exist."""
        path = self.root / relative
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def generated_files(self) -> list[str]:
        """Repo-relative paths of every generated file on disk in the owned directories."""
        found = []
        for pattern in OWNED_GLOBS:
            for path in sorted(self.root.glob(pattern)):
                with path.open(encoding="utf-8", errors="replace") as handle:
                    head = "".join(handle.readline() for _line in range(8))
                if GENERATED_MARK in head:
                    found.append(path.relative_to(self.root).as_posix())
        return found

    def write_all(self, files: dict[str, str], scope: tuple[str, ...]) -> tuple[list[str], list[str]]:
        """Write changed files, delete stale generated ones under ``scope`` prefixes; returns (written, removed)."""
        written = []
        for relative, text in files.items():
            if self.read(relative) != text:
                path = self.root / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                written.append(relative)
        removed = []
        for relative in self.generated_files():
            if relative.startswith(scope) and relative not in files:
                (self.root / relative).unlink()
                removed.append(relative)
        return written, removed
