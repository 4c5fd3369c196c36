"""Every decision about the real deck-api that goes beyond deck-api.md, in one place.

Each constant here is an assumption (emulator-contract.md: "keep each one in one place"). The README lists
them; change them here when the real API proves otherwise.
"""

# ruff: noqa: RUF001 - Russian texts are part of the API

from __future__ import annotations

from typing import Final

# --- endpoint forms (deck-api.md 1.2; the gateway serving the catalogue is open question 2) ---
GATEWAY_PREFIX: Final = "/api/v1/svc"
LEGACY_SCRIPT: Final = "/api/v1/index.cfm"
CATALOGUE_ON_ALL_FORMS: Final = True

# --- identifiers (deck-api.md 2: both cases occur) ---
INSTANCE_UID_UPPERCASE: Final = True  # instance UIDs like the tfstate's `9835EB50-...`
OPERATION_UID_UPPERCASE: Final = False  # operation and param-row UIDs lowercase
LOCATION_PREFIX: Final = "./"  # `Location: ./<UUID>`

# --- response bodies not shown by any source (open question 6) ---
CREATED_STATUS: Final = 201  # POST /instances, /instanceOperations, /instanceOperationCfsParams
CREATED_BODY: Final[dict[str, object]] = {}  # clients must read Location
RUN_STATUS: Final = 200
PUT_PARAM_STATUS: Final = 200
DELETE_PLACEHOLDER_STATUS: Final = 200  # DELETE /instances/{uid} on an instance no operation has run on

# --- lists (open question 5) ---
LIST_COUNT_KEY: Final = "total"  # ED: `total`, not `totalCount`
DEFAULT_PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 1000
HONOUR_SIZE_PARAM: Final = False  # RN's `?size=` is ignored; only `pageSize` counts
LIST_ITEM_FIELDS: Final = (
    "instanceUid",
    "displayName",
    "descr",
    "serviceId",
    "svc",
    "resourceRealm",
    "explainedStatus",
    "isDeleted",
    "operationIsPending",
    "operationIsInProgress",
    "lastOperation",
    "lastOperationUid",
    "instanceConfigDtCreated",
)
INSTANCE_ID_FIELDS: Final = ("instanceUid",)  # identity survives `?fields=`
OPERATION_ID_FIELDS: Final = ("instanceOperationUid",)

# --- display names (deck-api.md 2.1 / 5.4: 400 `not unique` for DNS, relied on by both live-tested DNS clients;
# the seed: no uniqueness in general; deleted instances keep their names) ---
# None: each service as its catalogue file says (`emulatorUniqueDisplayNames`: DNS zones 110 and records 111 on,
# every other service off for lack of evidence); True / False force it for all services.
UNIQUE_DISPLAY_NAMES_DEFAULT: Final[bool | None] = None
UNIQUE_DISPLAY_NAME_SCOPE_INCLUDES_DELETED: Final = True
NOT_UNIQUE_MESSAGE: Final = "displayName '{name}' is not unique for service {svc}"

# --- timestamps ---
TIMESTAMP_FORMAT: Final = "%Y-%m-%dT%H:%M:%S"  # + `.mmm` milliseconds, UTC, no zone suffix; sorts lexically

# --- explainedStatus vocabulary (emulator-contract.md "Instance state") ---
STATUS_NOT_CREATED: Final = "not created"
STATUS_FAILED: Final = "failed"  # the create operation finished unsuccessfully
STATUS_RUNNING: Final = "running"
STATUS_SUSPENDED: Final = "suspended"
STATUS_DELETED: Final = "deleted"
STATUS_WHILE_RUNNING: Final[dict[str, str]] = {
    "create": "creating",
    "modify": "modifying",
    "suspend": "suspending",
    "resume": "resuming",
    "delete": "deleting",
}
STATUS_WHILE_RUNNING_OTHER: Final = "modifying"  # redeploy, sub-resource and maintenance operations
RAW_STATUS_DEFAULT_MAP: Final[dict[str, str]] = {"running": "Running", "suspended": "Приостановлена"}

# --- operation timing (deck-api.md 5.2; durations are ours) ---
PENDING_FRACTION: Final = 0.2  # share of an operation's duration spent queued (isPending) before dtStart
DEFAULT_DURATIONS: Final[dict[str, float]] = {  # seconds, when no op_duration is given
    "create": 6.0,
    "modify": 4.0,
    "delete": 3.0,
    "suspend": 3.0,
    "resume": 3.0,
    "redeploy": 5.0,
    "*": 2.0,
}
FOLLOWUP_DURATION_FRACTION: Final = 0.25  # the delete follow-up runs this share of the delete's duration

# --- stages (names in Russian, deck-api.md 5.2 shows "Подготовка среды") ---
STAGES: Final[dict[str, tuple[str, ...]]] = {
    "create": ("Подготовка среды", "Создание ресурсов", "Настройка сервиса", "Сохранение секретов в Vault"),
    "modify": ("Подготовка среды", "Применение изменений", "Проверка состояния"),
    "delete": ("Подготовка среды", "Удаление ресурсов", "Очистка секретов"),
    "suspend": ("Подготовка среды", "Остановка сервиса"),
    "resume": ("Подготовка среды", "Запуск сервиса", "Проверка состояния"),
    "redeploy": ("Подготовка среды", "Сборка образа", "Развёртывание", "Проверка состояния"),
    "followup": ("Проверка состояния услуги",),
    "*": ("Подготовка среды", "Выполнение операции"),
}
DUMMY_STAGES: Final = ("Подготовка", "Заполнение данных", "Запись в Vault")  # dummy whereFail 1, 2, 3
STAGE_IN_PROGRESS_MSG: Final = "[PROCESS]"
SUBMIT_RESULT: Final = "201"
DEFAULT_FAILURE_MESSAGE: Final = "Jenkins job finished with status FAILURE"  # fail_stage without `error`

# --- the delete follow-up (deck-api.md 5.4; that /run of a delete answers Location of it is our reading) ---
FOLLOWUP_ERROR_LOG: Final = "Услуга удалена"
FOLLOWUP_UPDATER: Final = "system"
RUN_DELETE_RETURNS_CHILD_LOCATION: Final = True

# --- error texts (CFML style `{"ERROR", "TAGCONTEXT"}`, deck-api.md 1.4) ---
TAG_INSTANCES: Final = "/app/api/v1/resources/instances.cfc [Line 88]"
TAG_OPERATIONS: Final = "/app/api/v1/resources/instance_operations.cfc [Line 57]"
TAG_RUN: Final = "/app/api/v1/resources/instance_operation_run.cfc [Line 41]"
TAG_VALIDATE: Final = "/app/api/v1/resources/instance_operation_validate.cfc [Line 23]"
TAG_PARAMS: Final = "/app/api/v1/resources/instance_operation_cfs_params.cfc [Line 112]"
TAG_CATALOGUE: Final = "/app/api/v1/resources/services.cfc [Line 19]"
TAG_ROUTER: Final = "/app/api/v1/index.cfm [Line 12]"
MISSING_OPERATION_MESSAGE: Final = (
    "Element OPERATION is undefined in a Java object of type class coldfusion.runtime.Struct."
)
SQL_ERROR_MESSAGE: Final = (
    "ERROR: operator does not exist: uuid = character varying\n"
    "  Hint: No operator matches the given name and argument types. You might need to add explicit type casts."
)
CONCURRENT_MESSAGE: Final = "Concurrent operations are not allowed: operation {uid} is not finished yet"
EXECUTABLE_MESSAGE: Final = "key [EXECUTABLE] doesn't exist"
RERUN_MESSAGE: Final = "Cannot connect to the orchestrator. Host name may not be empty"  # run of a finished op
DELETE_WITH_STATE_MESSAGE: Final = "Instance deletion disabled when having state"
OPERATION_EXISTS_STATUS: Final = 409  # CM accepts 409 or 400 with a Location
OPERATION_EXISTS_MESSAGE: Final = "Operation already exists: {uid}"
MISSING_REQUIRED_MESSAGE: Final = "Не заполнены обязательные параметры: {codes}"
SUBMITTED_OPERATION_MESSAGE: Final = "Operation {uid} has already been submitted; its parameters cannot change"

# --- validation (open question 4) ---
PARAM_ERROR_STATUS: Final = 400  # unknown param, wrong type, bad choice, malformed JSON
REFERENCE_ERROR_STATUS: Final = 422  # refSvcId points nowhere / to the wrong service; key (uniqueScope) conflicts
MISSING_REQUIRED_STATUS: Final = 422  # validate-cfs / run with required params unset
UNAVAILABLE_OPERATION_STATUS: Final = 422
DNS_RECORD_SVC_SHORT: Final = "dnsrecord"  # svcShort of service 111 (not published)
BOOLEAN_STRINGS: Final = ("true", "false")  # compared case-insensitively
EMPTY_MEANS_UNSET: Final = True  # "" is accepted for any type and counts as "not filled"
POST_ON_EXISTING_ROW_UPDATES: Final = True  # POST of a param that already has a row replaces its value
VALIDATE_OK_BODY: Final[dict[str, object]] = {"isValid": True, "errors": []}

# --- auth (deck-api.md 1.3) ---
JWT_ALGORITHM: Final = "HS256"
JWT_ISSUER: Final = "https://keycloak.nubes.ru/realms/cloud"
DEFAULT_TOKEN_TTL: Final = 24 * 3600
TEST_TOKEN_TTL: Final = 365 * 24 * 3600  # EmulatorServer.token: tests advance the clock a lot
UNAUTHORIZED_BODY: Final[dict[str, str]] = {"error": "401 Unauthorized", "message": "token signature is invalid"}
EXPIRED_BODY: Final[dict[str, str]] = {"error": "401 Unauthorized", "message": "token is expired"}
MISSING_TOKEN_BODY: Final[dict[str, str]] = {"error": "401 Unauthorized", "message": "missing bearer token"}

# --- redeploy / resource realm ---
REDEPLOY_DEFAULT_REVISION: Final = "HEAD"
DEFAULT_REALM: Final = "k8s-3.ext.nubes.ru"  # outputs of services whose realm param was not set

# --- request log ---
REDACTED: Final = "***"
SECRET_KEY_HINTS: Final = ("pass", "secret", "token", "key")

# --- the catalogue against the live data (../shared/reference/live-catalogue/, tests/test_live_fidelity.py) ---
# The catalogue files serve the live svcOperationCfsParamId, code, isRequired and defaultValue of every param the
# live files list, with a consistent dataType (live `string` also covers our map-fixed / array / json). The only
# deliberate differences, "<svcId>/<operation>/<param id>[/<field>]" -> why:
LIVE_CATALOGUE_DEVIATIONS: Final[dict[str, str]] = {
    "90/create/1002": (
        "tlsSettings is ours: emulator-contract.md asks for a map-fixed param with a dataDescriptor on postgres "
        "(the live files show none), so the map-fixed paths of the collection (P36, P41) run somewhere"
    ),
    "90/modify/1003": (
        "tlsSettings on modify, without s3BackupUid in its dataDescriptor: the create/modify difference P41 "
        "needs; not in the live files, like its create twin"
    ),
}
# Where the live files are silent, these stay our assumptions (catalogue/*.json; README "Catalogue"):
LIVE_CATALOGUE_SILENT: Final = (
    "svcOperationIds: svcId*100 + slot, except DNS records 111 (create 45, delete 46; modify 90 from CM/ED)",
    "operations other than create/modify (delete, suspend, resume, redeploy, create_/modify_/delete_<sub>, "
    "restart, recovery, reconcile) and their params",
    "dataDescriptors of map-fixed/array params, choices, refSvcId, uniqueScope, isSecret",
    "labels and man texts (ours, Russian), outputs and their emulatorValue, resourceRealms",
    "services 19 (vc_org), 110 (dnszone), 111 (dnsrecord params), 113 (quickstart)",
    "display-name uniqueness per service (catalogue `uniqueDisplayNames`)",
)
