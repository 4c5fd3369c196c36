"""CLI: python -m tests.cluster.launcher {up,down,env,status} (wrapped by tests/cluster/up, down, env)."""

from __future__ import annotations

import argparse
import os
import sys

from .cluster import down, env, status, up
from .layout import StateDir

DEFAULT_START_TIMEOUT = 180.0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tests/cluster", description=__doc__)
    parser.add_argument("command", choices=("up", "down", "env", "status"))
    args = parser.parse_args(argv)
    state = StateDir.from_env()
    if args.command == "up":
        return up(state, float(os.environ.get("NUBES_CLUSTER_START_TIMEOUT") or DEFAULT_START_TIMEOUT))
    if args.command == "down":
        return down(state)
    if args.command == "env":
        return env(state)
    return status(state)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
