"""Command line: ``python -m generator fetch|render|check|all`` (P46, P47)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from generator import pipeline
from generator.errors import GeneratorError
from generator.workspace import Workspace

DESCRIPTION = """\
Generate the nubes.cloud service modules and their docs from the Nubes deck-api catalogue.

  fetch   read /services/{id} and /serviceOperation/{id} for every service in
          config/services_list.txt and write specs/<name>.yml (the unified YAML)
  render  from specs/*.yml only: write plugins/modules/<name>.py, <name>_<sub>.py,
          <name>_info.py, docs/modules/*.md, docs/man/*.md, docs/index.md, meta/runtime.yml
  check   re-fetch (only when an endpoint is given) and re-render in memory and compare
          with the files on disk; exit 1 with a unified diff on any drift, a hand edit
          or a stale generated file. Without an endpoint: specs -> files and schema only.
  all     fetch, then render
"""

EPILOG = """\
The endpoint decides the API style: one containing 'index.cfm' is the legacy proxy
({endpoint}?endpoint=/path), anything else the REST gateway ({endpoint}/path).
Environment: NUBES_API_ENDPOINT, NUBES_API_TOKEN (the token is never printed).
Exit codes: 0 ok, 1 drift found, 2 error (message says what to fix).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (its --help is the CLI's documentation)."""
    parser = argparse.ArgumentParser(
        prog="python -m generator",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=["fetch", "render", "check", "all"], help="what to do")
    parser.add_argument(
        "--endpoint",
        default=os.environ.get("NUBES_API_ENDPOINT", ""),
        help="deck-api endpoint (default: $NUBES_API_ENDPOINT); check fetches only when it is set",
    )
    parser.add_argument(
        "--token", default=None, help="bearer token (default: $NUBES_API_TOKEN); prefer the environment variable"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="collection root holding config/, specs/, plugins/ (default: this checkout)",
    )
    parser.add_argument("--offline", action="store_true", help="check: ignore the endpoint, compare specs -> files")
    parser.add_argument(
        "--emulator",
        action="store_true",
        help="start the deck-api emulator of the test suite in-process (tests.emulator; a development checkout "
        "only) and use its endpoint and token",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors and drift")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    args = build_parser().parse_args(argv)
    token = args.token if args.token is not None else os.environ.get("NUBES_API_TOKEN", "")
    workspace = Workspace(args.root.resolve())
    if args.emulator:
        try:
            from tests.emulator import EmulatorServer
        except ImportError as exc:
            print(
                f"generator: error: --emulator needs the test suite's emulator (tests.emulator): {exc}", file=sys.stderr
            )
            return 2
        with EmulatorServer(seed=1) as emu:
            return _run(args, workspace, emu.endpoint, emu.token)
    return _run(args, workspace, "" if args.offline else args.endpoint, token)


def _run(args: argparse.Namespace, workspace: Workspace, endpoint: str, token: str) -> int:
    try:
        lines: list[str] = []
        if args.command in ("fetch", "all"):
            lines += pipeline.fetch(workspace, endpoint, token)
        if args.command in ("render", "all"):
            lines += pipeline.render(workspace)
        if args.command == "check":
            report = pipeline.check(workspace, endpoint, token)
            print(report.summary(), file=sys.stdout if report.clean else sys.stderr)
            return 0 if report.clean else 1
    except GeneratorError as exc:
        print(f"generator {args.command}: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        for line in lines:
            print(line)
        print(f"generator {args.command}: {len(lines)} file(s) changed")
    return 0
