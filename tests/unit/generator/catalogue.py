"""A small hand-made deck-api catalogue and an httpx.MockTransport serving it in both endpoint styles.

Shapes follow emulator-contract.md ("Catalogue"); one service per shape the generator must handle:
dummy (map-fixed + array with dataDescriptor, P41 union), s3 (non-suspendable, secret output),
s3bucket (reference-linked child, choices), flask (redeploy, HTML-entity default), postgres (sub-resources,
suspend, excluded operations, option-name collision, secret param).
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import urlsplit

import httpx

TOKEN = "unit-test-token-0123456789"


def p(pid: int, code: str, data_type: str = "string", **extra: Any) -> dict[str, Any]:
    """A cfsParam descriptor."""
    desc: dict[str, Any] = {
        "svcOperationCfsParamId": pid,
        "svcOperationCfsParam": code,
        "label": extra.pop("label", f"Параметр {code}"),
        "man": extra.pop("man", ""),
        "dataType": data_type,
        "isRequired": extra.pop("req", False),
        "defaultValue": extra.pop("default", None),
    }
    desc.update(extra)
    return desc


def op(op_id: int, name: str, *params: dict[str, Any]) -> dict[str, Any]:
    """A service operation with its cfsParams."""
    return {"svcOperationId": op_id, "operation": name, "man": f"Операция {name}.", "cfsParams": list(params)}


def _sub(code: str, data_type: str = "string", **extra: Any) -> dict[str, Any]:
    desc = p(0, code, data_type, **extra)
    del desc["svcOperationCfsParamId"]
    return desc


SERVICES: dict[int, dict[str, Any]] = {
    1: {
        "svcId": 1,
        "svcShort": "dummy",
        "svcName": "Болванка",
        "man": "\n\n".join(["# Болванка", "Тестовая услуга."]) + "\n",
        "outputs": [{"code": "vault.url", "dataType": "string", "isSecret": False, "man": "Vault."}],
        "operations": [
            op(
                101,
                "create",
                p(198, "durationMs", "integer", req=True, default=0),
                p(242, "resourceRealm", req=True, choices=["dummy"]),
                p(
                    647,
                    "mapFixed",
                    "map-fixed",
                    dataDescriptor={"params": [_sub("fieldA", default="a"), _sub("fieldB", "integer", default=1)]},
                ),
                p(
                    654,
                    "arrayMapFixedExample",
                    "array",
                    dataDescriptor={"params": [_sub("name", req=True), _sub("value")]},
                ),
                p(322, "jsonExample", "json"),
            ),
            op(
                102,
                "modify",
                p(287, "durationMs", "integer", req=True, default="0"),
                p(
                    648,
                    "mapFixed",
                    "map-fixed",
                    default={},
                    dataDescriptor={"params": [_sub("fieldA", default="a"), _sub("fieldC", "boolean", default=False)]},
                ),
            ),
            op(103, "delete"),
        ],
    },
    12: {
        "svcId": 12,
        "svcShort": "s3",
        "svcName": "S3 Object Storage",
        "man": "S3.",
        "outputs": [
            {"code": "secretKey", "dataType": "string", "isSecret": True, "man": "Секретный ключ."},
            {"code": "accessKey", "dataType": "string", "isSecret": False, "man": "Ключ доступа."},
        ],
        "operations": [
            op(121, "create", p(163, "resourceRealm", req=True), p(320, "displayName", req=True)),
            op(122, "modify", p(50, "maxSizeGbPerUser", "integer")),
            op(123, "delete"),
        ],
    },
    13: {
        "svcId": 13,
        "svcShort": "s3bucket",
        "svcName": "S3 Bucket",
        "man": "",
        "outputs": [],
        "operations": [
            op(
                131,
                "create",
                p(124, "s3UserUid", req=True, refSvcId=12),
                p(125, "bucketName", req=True),
                p(130, "placement", req=True, default="HOT", choices=["HOT", "COLD"]),
                p(126, "maxSize", "integer", req=True, default=-1),
            ),
            op(133, "delete"),
        ],
    },
    89: {
        "svcId": 89,
        "svcShort": "flask",
        "svcName": "Flask",
        "man": "Flask app.",
        "outputs": [{"code": "url", "dataType": "string", "isSecret": False, "man": "URL."}],
        "operations": [
            op(
                891,
                "create",
                p(248, "domain", req=True, default="web01"),
                p(254, "jsonEnv", "json", default="{ &quot;param&quot;: &quot;value&quot; }"),
                p(250, "resourceCPU", "integer", default="300"),
            ),
            op(892, "modify", p(455, "jsonEnv", "json"), p(451, "resourceCPU", "integer")),
            op(893, "delete"),
            op(894, "suspend"),
            op(895, "resume"),
            op(896, "redeploy", p(900, "gitRevision")),
            op(897, "restart"),
        ],
    },
    90: {
        "svcId": 90,
        "svcShort": "postgres",
        "svcName": "PostgreSQL",
        "man": "\n\n".join(["# PostgreSQL", "Управляемый кластер."]) + "\n",
        "outputs": [
            {"code": "internalConnect.master", "dataType": "string", "isSecret": False, "man": "Мастер."},
            {"code": "adminPass", "dataType": "string", "isSecret": True, "man": "Пароль."},
        ],
        "operations": [
            op(
                9001,
                "create",
                p(82, "resourceCPU", "integer", default="500", label="CPU (миллиядра)", man="Квота CPU."),
                p(314, "allowNoSSL", "boolean", req=True, default=False),
                p(265, "ext_BACKUP_SCHEDULE", default="0 0 * * *"),
                p(23, "s3Uid", req=True, refSvcId=12),
                p(999, "state", label="Состояние"),
                p(310, "appVersion", req=True, default="17", choices=["16", "17"]),
                p(83, "resourceDisk", req=True, default="10"),  # live: a string on create ...
            ),
            op(
                9002,
                "modify",
                p(93, "resourceCPU", "integer"),
                p(319, "allowNoSSL", "boolean"),
                p(94, "resourceDisk", "integer"),  # ... and an integer on modify
            ),
            op(9003, "delete"),
            op(9004, "suspend"),
            op(9005, "resume"),
            op(
                9010,
                "create_user",
                p(700, "username", req=True, uniqueScope="parent"),
                p(701, "password", req=True, isSecret=True),
                p(702, "role", default="readwrite", choices=["readwrite", "readonly"]),
            ),
            op(9011, "modify_user", p(703, "username", req=True, uniqueScope="parent"), p(704, "role")),
            op(9012, "delete_user", p(705, "username", req=True, uniqueScope="parent")),
            op(9020, "restart"),
            op(9021, "recovery"),
            op(9022, "reconcile"),
        ],
    },
}

SERVICES_LIST = """\
# test list
1   dummy  title="Dummy" test=true
12  s3
13  s3_bucket  s3bucket
89  flask
90  postgres
"""

CORE_VERSIONS = "# test versions\n2.16  3.12\n2.21  3.13\n"

# config/english.yml of the test catalogue (issue 27): an English text per param code, output code and service.
ENGLISH: dict[str, Any] = {
    "params": {
        "allowNoSSL": "Accept connections without TLS.",
        "appVersion": "Version of the software.",
        "arrayMapFixedExample": "A list of name/value pairs.",
        "arrayMapFixedExample.name": "Name of the pair.",
        "arrayMapFixedExample.value": "Value of the pair.",
        "bucketName": "Name of the bucket.",
        "displayName": "Display name of the S3 user.",
        "domain": "Subdomain of the application.",
        "durationMs": "Duration of each operation, in milliseconds.",
        "ext_BACKUP_SCHEDULE": "When backups run, as a cron expression.",
        "jsonEnv": "Environment variables of the application.",
        "jsonExample": "Any JSON object.",
        "mapFixed": "A dictionary with fixed fields.",
        "mapFixed.fieldA": "A text field.",
        "mapFixed.fieldB": "A number field.",
        "mapFixed.fieldC": "A true/false field.",
        "maxObjectsPerBucket": "Maximum number of objects in one bucket.",  # test_gen_drift's new API param
        "maxSize": "Size quota of the bucket in gigabytes; V(-1) means no quota.",
        "maxSizeGbPerUser": "Storage quota of the S3 user, in gigabytes.",
        "password": "Password of the user.",
        "placement": "Storage class of the bucket.",
        "resourceCPU": "CPU limit in millicores.",
        "resourceDisk": "Disk size in gigabytes.",
        "resourceRealm": "Realm the service is deployed to.",
        "role": "Rights of the user.",
        "s3Uid": "The S3 instance backups go to.",
        "s3UserUid": "The S3 user that owns the bucket.",
        "state": "A param whose option name clashes with a lifecycle option.",
        "username": "Name of the user.",
    },
    "outputs": {
        "accessKey": "Access key ID.",
        "adminPass": "Password of the administrator.",
        "internalConnect.master": "Internal address of the primary.",
        "secretKey": "Secret access key.",
        "url": "URL of the application.",
        "vault.url": "Link to the secrets in Vault.",
    },
    "services": {
        "dummy": {"description": "Writes a message to Vault.", "params": {"resourceRealm": "Always V(dummy)."}},
        "flask": {"description": "A Flask application."},
        "postgres": {"description": ["A managed PostgreSQL cluster."], "subresources": {"user": "A user."}},
        "s3": {"description": "An S3 user."},
        "s3_bucket": {"description": "An S3 bucket."},
    },
}

# config/examples.yml of the test catalogue (issue 27).
EXAMPLE_VALUES: dict[str, Any] = {
    "params": {"domain": "shop", "resourceRealm": "k8s-3.ext.nubes.ru"},
    "services": {
        "dummy": {"resource_name": "playbook-check"},
        "flask": {"resource_name": "shop-web"},
        "postgres": {"resource_name": "shop-db", "params": {"username": "shop_app", "password": "{{ db_password }}"}},
        "s3": {
            "resource_name": "shop-backups",
            "params": {"displayName": "shop-backups", "resourceRealm": "s3.nubes.ru"},
        },
        "s3_bucket": {"resource_name": "shop-media", "params": {"bucketName": "acme-shop-media"}},
    },
}

TIMEOUTS = {
    "defaults": {
        "create": 100,
        "modify": 100,
        "delete": 50,
        "suspend": 50,
        "resume": 50,
        "redeploy": 100,
        "subresource": 30,
    },
    "services": {"postgres": {"create": 200}},
}


def catalogue_bodies(services: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """API path -> JSON body, as deck-api answers them."""
    bodies: dict[str, Any] = {}
    for svc_id, svc in services.items():
        svc_body = {k: v for k, v in svc.items() if k != "operations"}
        svc_body["operations"] = [
            {"svcOperationId": o["svcOperationId"], "operation": o["operation"]} for o in svc["operations"]
        ]
        bodies[f"/services/{svc_id}"] = {"svc": svc_body}
        for o in svc["operations"]:
            bodies[f"/serviceOperation/{o['svcOperationId']}"] = {"svcOperation": o}
    return bodies


class FakeDeckApi:
    """A MockTransport handler: gateway (``/api/v1/svc/<path>``) and legacy (``index.cfm?endpoint=``) styles."""

    def __init__(self, services: dict[int, dict[str, Any]] | None = None, fail_first: int = 0) -> None:
        self.services = copy.deepcopy(SERVICES if services is None else services)
        self.requests: list[httpx.Request] = []
        self.fail_first = fail_first

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return httpx.Response(401, text="401 Unauthorized: token signature is invalid")
        if self.fail_first > 0:
            self.fail_first -= 1
            return httpx.Response(503, text="busy")
        url = urlsplit(str(request.url))
        if url.path.endswith("/index.cfm"):
            path = request.url.params.get("endpoint", "")
        elif url.path.startswith("/api/v1/svc/"):
            path = url.path[len("/api/v1/svc") :]
        else:
            return httpx.Response(404, text="no route")
        body = catalogue_bodies(self.services).get(path)
        if body is None:
            return httpx.Response(404, json={"ERROR": f"not found: {path}"})
        return httpx.Response(200, content=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


GATEWAY = "http://deck.test/api/v1/svc"
LEGACY = "http://deck.test/api/v1/index.cfm"
