"""Command line: `python -m tests.emulator serve ...` and `python -m tests.emulator token ...`."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

from tests.emulator import assumptions as A
from tests.emulator.auth import mint_token
from tests.emulator.server import EmulatorServer
from tests.emulator.settings import OPERATION_ID_OFFSET_ENV, operation_id_offset_from_env

KEY_ENV = "NUBES_EMULATOR_KEY"


def _load_fault_file(path: Path) -> dict[str, Any]:
    """A JSON or YAML file: a list of rules, or {seed, rules, settings}."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"cannot read the fault file {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise SystemExit(f"the fault file {path} is not valid JSON/YAML: {exc}") from exc
    if isinstance(data, list):
        data = {"rules": data}
    if not isinstance(data, dict):
        raise SystemExit(f"the fault file {path} must hold a list of rules or a mapping with 'rules'")
    return data


def _durations(items: list[str]) -> dict[str, float]:
    result: dict[str, float] = {}
    for item in items:
        name, sep, seconds = item.partition("=")
        try:
            result[name] = float(seconds)
        except ValueError:
            sep = ""
        if not sep or not name:
            raise SystemExit(f"--duration expects NAME=SECONDS (e.g. postgres.create=5), got {item!r}")
    return result


def _serve(args: argparse.Namespace) -> int:
    config = _load_fault_file(Path(args.faults)) if args.faults else {}
    seed = args.seed if args.seed is not None else int(config.get("seed", 0))
    try:
        offset = args.operation_id_offset if args.operation_id_offset is not None else operation_id_offset_from_env()
        emu = EmulatorServer(
            seed=seed,
            op_duration=args.op_duration,
            durations=_durations(args.duration),
            key=args.key or os.environ.get(KEY_ENV),
            faults=list(config.get("rules", [])),
            state_file=args.state,
            unique_display_names=args.unique_display_names,
            host=args.host,
            port=args.port,
            operation_id_offset=offset,
        )
        if config.get("settings"):
            emu.configure(**config["settings"])
    except ValueError as exc:
        raise SystemExit(f"cannot start the emulator: {exc}") from exc
    emu.start()
    print(f"NUBES_API_ENDPOINT={emu.endpoint}")
    print(f"NUBES_API_TOKEN={emu.mint_token(args.token_ttl)}", flush=True)
    print(
        f"legacy endpoint: {emu.legacy_endpoint}  admin API: {emu.admin_url}  (stop with Ctrl-C)",
        file=sys.stderr,
        flush=True,
    )
    if emu.operation_id_offset:
        print(f"operation ids: catalogue + {emu.operation_id_offset}", file=sys.stderr, flush=True)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    while not stop.wait(0.5):
        pass
    emu.stop()
    return 0


def _token(args: argparse.Namespace) -> int:
    key = args.key or os.environ.get(KEY_ENV)
    if not key:
        raise SystemExit(f"no signing key: pass --key or set {KEY_ENV} (the same key the emulator was started with)")
    print(mint_token(key, ttl=args.ttl, username=args.username))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.emulator", description="Local emulator of the Nubes deck-api."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the emulator in the foreground until SIGTERM/SIGINT")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    serve.add_argument("--seed", type=int, default=None, help="seed for ids, secrets and fault probabilities")
    serve.add_argument("--faults", help="JSON/YAML file: a list of fault rules, or {seed, rules, settings}")
    serve.add_argument("--state", help="JSON file to keep instances in across restarts")
    serve.add_argument("--key", help=f"token signing key (default: ${KEY_ENV}, else random)")
    serve.add_argument("--op-duration", type=float, default=None, help="seconds every operation takes")
    serve.add_argument(
        "--duration",
        action="append",
        default=[],
        metavar="NAME=SECONDS",
        help="per service/operation duration, e.g. postgres=3 or postgres.create=5 (repeatable)",
    )
    serve.add_argument("--unique-display-names", action="store_true", help="answer 400 'not unique' on duplicates")
    serve.add_argument(
        "--operation-id-offset",
        type=int,
        default=None,
        metavar="N",
        help=f"add N to every svcOperationId served (default: ${OPERATION_ID_OFFSET_ENV}, else 0)",
    )
    serve.add_argument("--token-ttl", type=float, default=A.DEFAULT_TOKEN_TTL, help="lifetime of the printed token")
    serve.set_defaults(func=_serve)
    token = sub.add_parser("token", help="print a bearer token signed with --key")
    token.add_argument("--key", help=f"signing key (default: ${KEY_ENV})")
    token.add_argument("--ttl", type=float, default=A.DEFAULT_TOKEN_TTL, help="seconds; negative for an expired token")
    token.add_argument("--username", default=None)
    token.set_defaults(func=_token)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result
