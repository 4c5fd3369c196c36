"""How long a dead end takes to fail (issue 16): a wrong token, and an endpoint where nothing listens.

Runs `ansible-playbook` with one `nubes.cloud.dummy_info` task, real backoff (no NUBES_BACKOFF_SCALE), against an
in-process emulator (wrong token) and against a free port on 127.0.0.1 (nothing listens). Prints, per case, the
wall time of the whole playbook (median, min, max of --runs) and the requests the emulator saw per run.
Usage: .venv/bin/python bench/dead_end_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.emulator import EmulatorServer  # noqa: E402

PLAY = """- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - nubes.cloud.dummy_info:
        resource_name: dead-end-bench
      register: result
      ignore_errors: true
    - ansible.builtin.copy:
        content: "{{ result | to_json }}"
        dest: "{{ playbook_dir }}/result.json"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(workdir: Path, endpoint: str, token: str) -> tuple[float, dict[str, object]]:
    env = dict(os.environ)
    env.pop("NUBES_BACKOFF_SCALE", None)
    env.update(
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        NUBES_API_ENDPOINT=endpoint,
        NUBES_API_TOKEN=token,
        NUBES_STATE_PATH=str(workdir / "state.json"),
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    play = workdir / "play.yml"
    play.write_text(PLAY, encoding="utf-8")
    command = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", "localhost,", str(play)]
    command += ["-e", f"ansible_python_interpreter={sys.executable}"]
    start = time.monotonic()
    subprocess.run(command, cwd=workdir, env=env, capture_output=True, check=False, timeout=600)
    took = time.monotonic() - start
    return took, json.loads((workdir / "result.json").read_text(encoding="utf-8"))


def figures(values: list[float]) -> str:
    median = statistics.median(values)
    return f"median {median:.1f} s (min {min(values):.1f}, max {max(values):.1f}, {len(values)} runs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmulatorServer(seed=1) as emu:
        token_times, requests, messages = [], [], []
        for _run in range(args.runs):
            since = len(emu.requests())
            took, result = run(Path(tmp), emu.endpoint, "not-a-valid-token")
            token_times.append(took)
            requests.append(len(emu.requests()) - since)
            messages.append(str(result.get("msg", ""))[:160])
        print(f"wrong token: {figures(token_times)}; requests per run {requests}; message: {messages[-1]}")
        endpoint = f"http://127.0.0.1:{free_port()}/api/v1/svc"
        dead_times = []
        for _run in range(args.runs):
            took, result = run(Path(tmp), endpoint, emu.token)
            dead_times.append(took)
        print(f"nothing listening: {figures(dead_times)}; message: {str(result.get('msg', ''))[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
