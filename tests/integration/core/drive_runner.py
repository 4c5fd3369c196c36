"""Drive the runner in a separate process (for the crash test): `python -m tests.integration.core.drive_runner
'<json>'` with {"service_id": 12, "kind": "instance", "sub": null, "params": {...}}; prints the result as JSON."""

from __future__ import annotations

import json
import sys

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import Runner
from tests.unit.nubes.service_specs import service_from_catalogue


def main(argv: list[str]) -> int:
    job = json.loads(argv[1])
    service = service_from_catalogue(int(job["service_id"]))
    try:
        result = Runner(service, job["params"], job.get("kind", "instance"), job.get("sub")).run()
    except NubesError as exc:
        print(json.dumps({"failed": True, "msg": exc.msg}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
