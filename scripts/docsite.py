"""Build the HTML docs site of nubes.cloud into build/site/ (`make docs-site`; issue 27, seed rule P5).

1. antsibull-docs writes one page per module, plugin and role of nubes.cloud (their DOCUMENTATION, RETURN and role
   argument specs as `ansible-doc` reads them from this checkout) into build/docsite/src/collection/;
2. scripts/docsite_sources.py lays the Markdown guides out beside them, their links mapped onto the site;
3. Sphinx (docsite/conf.py: the Ansible theme, antsibull's extension, myst-parser) builds the HTML with warnings
   as errors (-W);
4. the HTML replaces build/site/ only when the build passed.
The build is skipped when none of its inputs changed since the last build that passed (a hash of their contents,
kept in build/docsite-inputs.sha256), so `make test` and `make dist` pay for it once. A build that ran is a row
of the CI timing table (scripts/timing-record.sh).

Usage (from the repository root): python -m scripts.docsite [--force]
(`make docs-site` runs it with the venv's Python and sets ANSIBLE_COLLECTIONS_PATH.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import yaml

from scripts import docsite_sources

ROOT = Path(__file__).resolve().parents[1]
COLLECTION = "nubes.cloud"
# Everything whose content can change the site; files under these paths, recursively.
INPUTS = (
    "galaxy.yml",
    "meta",
    "plugins",
    "roles",
    "README.md",
    "COPYING",
    "docs",
    "examples",
    "changelogs",
    "docsite",
    "requirements-docs.txt",
    "requirements-dev.txt",
    "scripts/docsite.py",
    "scripts/docsite_sources.py",
)
# Caches, and the plugin code that carries no documentation (a change there leaves the site as it is).
SKIPPED_PARTS = {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "module_utils", "plugin_utils"}


class BuildError(Exception):
    """A step of the build failed; the message says which and what to look at."""


def inputs_digest(root: Path) -> str:
    """SHA-256 over the path and content of every input file, and the Python that builds."""
    digest = hashlib.sha256(f"{sys.version_info[:3]}\n".encode())
    for name in INPUTS:
        top = root / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in files:
            if SKIPPED_PARTS.intersection(path.relative_to(root).parts) or path.suffix == ".pyc":
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def tool_env(root: Path) -> dict[str, str]:
    """The environment of antsibull-docs and Sphinx: this venv's tools first, this checkout as nubes.cloud."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("ANSIBLE_COLLECTIONS_PATH", str(root / ".collections"))
    return env


def run(step: str, cmd: list[str], env: dict[str, str]) -> None:
    print(f"docs-site: {step}: {' '.join(cmd)}", flush=True)
    start = time.monotonic()
    result = subprocess.run(cmd, env=env, check=False)
    if result.returncode != 0:
        raise BuildError(f"{step} failed with exit code {result.returncode} (its messages are above)")
    print(f"docs-site: {step}: done in {time.monotonic() - start:.0f} s", flush=True)


def repository_url(root: Path) -> str:
    galaxy = yaml.safe_load((root / "galaxy.yml").read_text(encoding="utf-8"))
    return str(galaxy["repository"])


def write_inventory(listing: Path, inventory: Path) -> None:
    """The intersphinx inventory (Sphinx's format version 2) of the Ansible pages listed in `listing`."""
    lines = [line for line in listing.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    header = "# Sphinx inventory version 2\n# Project: Ansible\n# Version: latest\n"
    header += "# The remainder of this file is compressed using zlib.\n"
    inventory.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))


def build(root: Path, work: Path, site: Path) -> int:
    """Build the site into work/html and publish it as `site`; returns the number of HTML pages."""
    env = tool_env(root)
    shutil.rmtree(work, ignore_errors=True)
    source = work / "src"
    reference = source / docsite_sources.REFERENCE_DIR
    reference.mkdir(parents=True)
    for directory in (work, source, reference):
        directory.chmod(0o755)  # antsibull-docs refuses a destination others can write to
    bin_dir = Path(sys.executable).parent
    run(
        "antsibull-docs (a page per module, plugin and role)",
        [
            str(bin_dir / "antsibull-docs"),
            "collection",
            "--use-current",
            "--squash-hierarchy",
            "--fail-on-error",
            "--dest-dir",
            str(reference),
            COLLECTION,
        ],
        env,
    )
    repository = repository_url(root)
    pages = docsite_sources.lay_out(root, source, repository)
    for name in ("conf.py", "index.rst"):
        shutil.copyfile(root / "docsite" / name, source / name)
    write_inventory(root / "docsite" / "ansible-objects.txt", source / "ansible-objects.inv")
    print(f"docs-site: laid out {len(pages)} Markdown page(s) beside the reference pages", flush=True)
    html = work / "html"
    run(
        "sphinx-build (warnings are errors)",
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-E",
            "-q",
            # the theme's top bar links here; its default "/" is outside the site wherever it is published
            "-D",
            f"html_theme_options.documentation_home_url={repository}",
            "-d",
            str(work / "doctrees"),
            str(source),
            str(html),
        ],
        env,
    )
    shutil.rmtree(site, ignore_errors=True)
    site.parent.mkdir(parents=True, exist_ok=True)
    html.rename(site)
    return len(list(site.rglob("*.html")))


def record_timing(seconds: int, status: str) -> None:
    subprocess.run(
        [
            "bash",
            str(ROOT / "scripts" / "timing-record.sh"),
            "build",
            "docs site (make docs-site)",
            str(seconds),
            status,
        ],
        check=False,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when no input changed")
    args = parser.parse_args(argv)
    work, site = ROOT / "build" / "docsite", ROOT / "build" / "site"
    stamp = ROOT / "build" / "docsite-inputs.sha256"
    digest = inputs_digest(ROOT)
    if not args.force and (site / "index.html").is_file() and stamp.is_file() and stamp.read_text().strip() == digest:
        print(f"docs-site: {site.relative_to(ROOT)}/ is up to date (no input changed since it was built)")
        return 0
    stamp.unlink(missing_ok=True)
    start = time.monotonic()
    try:
        count = build(ROOT, work, site)
    except (BuildError, docsite_sources.SiteSourceError) as err:
        record_timing(round(time.monotonic() - start), "FAILED")
        print(f"docs-site: {err}", file=sys.stderr)
        return 1
    seconds = round(time.monotonic() - start)
    stamp.write_text(digest + "\n", encoding="utf-8")
    record_timing(seconds, "built")
    print(f"docs-site: built {site.relative_to(ROOT)}/ ({count} HTML pages) in {seconds} s; open build/site/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
