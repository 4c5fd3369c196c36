# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory plugin nubes.cloud.nubes: the live Nubes instances as hosts (docs/inventory.md)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: nubes
short_description: Nubes cloud instances as inventory hosts
version_added: 1.0.0
description:
  - Lists the instances of Nubes cloud services through the deck-api and makes one host of every live
    (not deleted) instance of the selected services.
  - The host name is the instance's display name, made safe for Ansible host patterns (every character other
    than a letter, a digit, V(_), V(.) or V(-) becomes V(_)); an empty name, or one of V(localhost),
    V(127.0.0.1), V(::1), gives the instance uid instead. When two instances would get the same name, the
    oldest keeps it and each later one gets V(-) and the first 8 hex digits of its uid appended (a warning
    names them). O(hostname) replaces the display name with a template.
  - >-
    Host variables: C(instance_uid), C(resource_name) (the display name), C(service) (the module name, for
    example V(postgres)), C(service_id), C(status) (normalised: V(running), V(suspended), V(creating),
    V(pending), V(failed), V(not_created)), C(status_raw) (what the API said), C(resource_realm), and, when the
    instance details are read (O(instance_details)), C(params) (non-secret parameters by option name, as the
    modules name them) and C(outputs) (non-secret outputs by output code, for example
    C(outputs['externalConnect.master.fqdn'])). Secret parameters and outputs never reach the inventory or
    its cache.
  - C(ansible_host) is the first of the service's address outputs that has a value (see
    O(ansible_host_outputs)).
  - Hosts are put in the groups C(service_<service>) and C(status_<status>) (see O(default_groups)), and in
    any group that O(groups) or O(keyed_groups) build.
  - >-
    API calls: one paged list (100 instances a page) of every instance, or one per service named in
    O(services); then C(GET /instances/{uid}) only for instances that are selected, not deleted, pass
    O(statuses) and either O(instance_details) is on or the list gave no status. With O(cache) enabled a run
    within O(cache_timeout) makes no API call at all.
  - The configuration file name must end with C(nubes.yml) or C(nubes.yaml).
author:
  - nubes.cloud contributors (@nubes-cloud)
requirements:
  - httpx >= 0.28 (on the controller)
extends_documentation_fragment:
  - constructed
  - inventory_cache
options:
  plugin:
    description: Marks this file as a configuration of this plugin.
    required: true
    type: str
    choices: [nubes.cloud.nubes]
  api_endpoint:
    description:
      - URL of the Nubes deck-api, the same as the modules' O(api_endpoint).
      - An endpoint that contains C(index.cfm) is the legacy proxy (calls go to C(?endpoint=/path)); any other
        endpoint is the REST gateway (paths are appended), for example C(https://lk-api-gateway.ngcloud.ru/api/v1/svc).
      - May be a Jinja2 template (for example a lookup or an extra variable).
      - Required, here or through the environment variable.
    type: str
    env:
      - name: NUBES_API_ENDPOINT
  api_token:
    description:
      - Bearer token (a Keycloak JWT access token) for the deck-api, the same as the modules' O(api_token).
      - May be a Jinja2 template or a vault-encrypted string. Never shown, logged or written to the cache.
      - Required, here or through the environment variable.
    type: str
    env:
      - name: NUBES_API_TOKEN
  validate_certs:
    description: Verify the API's TLS certificate. Leave it on outside of tests.
    type: bool
    default: true
  ca_path:
    description: A CA bundle (PEM file) used to verify the API's certificate instead of the system bundle.
    type: path
  request_timeout:
    description: Timeout of one HTTP request, in seconds.
    type: float
    default: 60.0
  services:
    description:
      - The services whose instances become hosts, by module name (V(postgres), V(s3_bucket)), API short name
        (V(s3bucket)) or service id (V(90)).
      - Empty means every service the collection has a module for (one paged list of all instances); naming
        services lists only theirs (one paged list per service).
      - An unknown service is an error before any API call; the message lists the known ones.
    type: list
    elements: str
    default: []
  statuses:
    description:
      - Only instances whose normalised status is one of these become hosts. Empty means every live status.
      - Deleted instances are never hosts.
    type: list
    elements: str
    choices: [running, suspended, creating, pending, failed, not_created]
    default: []
  instance_details:
    description:
      - Read every selected instance (C(GET /instances/{uid})) for C(params), C(outputs) and C(ansible_host),
        which the instance list does not carry.
      - With V(false) only the paged list is read; hosts then carry C(instance_uid), C(resource_name),
        C(service), C(service_id), C(status), C(status_raw) and C(resource_realm). Should the list not give an
        instance's status, that instance is read anyway (and its details are used).
    type: bool
    default: true
  concurrency:
    description: How many instance details are read at the same time.
    type: int
    default: 8
  ansible_host_outputs:
    description:
      - Which output gives C(ansible_host), per service (module name, short name or id) - an output code or a
        list of codes tried in order; the first with a value wins. An empty list sets no C(ansible_host).
      - Services not named here use their address outputs in catalogue order - the public outputs whose code
        ends in C(fqdn), C(ip), C(externalIp) or C(hostname), for example a VM's C(ip) or PostgreSQL's
        C(externalConnect.master.fqdn) before C(externalConnect.master.ip).
      - Naming a secret or unknown output is an error (the message lists the service's outputs).
      - O(compose) can still set C(ansible_host) from anything else.
    type: dict
    default: {}
  hostname:
    description:
      - A Jinja2 template for the host name, evaluated with the host variables above (without O(compose));
        for example V({{ service }}-{{ resource_name }}). The result is made safe and unique as described
        above. An empty result falls back to the display name.
    type: str
  default_groups:
    description:
      - Put every host in C(service_<service>) and C(status_<status>).
      - Turn it off to build every group with O(groups) and O(keyed_groups) instead.
    type: bool
    default: true
notes:
  - Transient API errors are retried as in the modules (HTTP 401, 429, 502, 503, 504 on reads, 3 times with
    2, 4 and 8 seconds of backoff).
  - A wrong token, an endpoint that cannot be reached or one that does not answer like the deck-api stops the
    inventory with an error that says what to check. C(ansible-inventory) and C(ansible-playbook) show it as a
    warning and go on without these hosts unless C(inventory_unparsed_failed) (env
    E(ANSIBLE_INVENTORY_UNPARSED_FAILED)) is set, as AWX does for inventory updates.
  - Instances of services the collection has no module for are not listed as hosts.
seealso:
  - name: Inventory guide
    description: How to use the nubes.cloud.nubes inventory, with AWX.
    link: https://github.com/nubes-cloud/nubes.cloud/blob/main/docs/inventory.md
"""

EXAMPLES = r"""
# Each example is its own inventory file, named in its first comment. The first is written out; the others are
# commented out here (one YAML document cannot hold several files): remove the "# " to use them.
# inventory.nubes.yml - every live instance; endpoint and token from NUBES_API_ENDPOINT / NUBES_API_TOKEN.
plugin: nubes.cloud.nubes

# prod.nubes.yml - running databases only, grouped by realm and by an output, with a cache.
# plugin: nubes.cloud.nubes
# services: [postgres, redis, 92]
# statuses: [running]
# ansible_host_outputs:
#   postgres: [externalConnect.master.fqdn, externalConnect.master.ip]
#   redis: []
# keyed_groups:
#   - key: resource_realm
#     prefix: realm
#   - key: params.app_version | default('none')
#     prefix: postgres_version
# compose:
#   pg_dsn: "'postgresql://' ~ outputs['externalConnect.master.fqdn'] ~ ':5432/postgres'"
# groups:
#   small: params.resource_cpu | default(0) <= 500
# cache: true
# cache_plugin: ansible.builtin.jsonfile
# cache_connection: ~/.cache/nubes-inventory
# cache_timeout: 600

# list.nubes.yml - the fastest listing: no instance details, host names prefixed with the service.
# plugin: nubes.cloud.nubes
# instance_details: false
# hostname: "{{ service }}-{{ resource_name }}"
# default_groups: false
# keyed_groups:
#   - key: service
#     prefix: nubes
#   - key: status
#     prefix: nubes

# vaulted.nubes.yml - the token from a vaulted variable file passed with -e @secrets.yml, the endpoint written here.
# plugin: nubes.cloud.nubes
# api_endpoint: https://lk-api-gateway.ngcloud.ru/api/v1/svc
# api_token: "{{ nubes_api_token }}"
"""

import hashlib  # noqa: E402  (inventory plugins document before importing)
import json  # noqa: E402
from typing import Any, Dict, List, Optional  # noqa: E402

from ansible.errors import AnsibleError, AnsibleParserError  # noqa: E402
from ansible.module_utils.common.text.converters import to_text  # noqa: E402
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable  # noqa: E402

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.hostnames import safe_hostname, unique_hostnames  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.reader import InventoryApi, Selection, read_hosts  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig, Redactor  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError  # noqa: E402

try:  # ansible-core 2.19+: variables from inventory plugins are never trusted as templates
    import ansible.module_utils.datatag  # noqa: F401  pylint: disable=unused-import

    def untrusted(value: Any) -> Any:
        return value

except ImportError:  # older ansible-core: mark API data unsafe so a display name is never templated
    from ansible.utils.unsafe_proxy import wrap_var as untrusted

CACHE_VERSION = 1


def valid_record(record: Any) -> bool:
    """A cached host record has at least what host names and default groups are made from."""
    return isinstance(record, dict) and all(
        isinstance(record.get(k), str) for k in ("instance_uid", "service", "status")
    )


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "nubes.cloud.nubes"

    def verify_file(self, path: str) -> bool:
        return super().verify_file(path) and path.endswith(("nubes.yml", "nubes.yaml"))

    def parse(self, inventory: Any, loader: Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        self.templar.available_variables = self._vars or {}
        try:
            catalogue = load_catalogue()
            selection = Selection(
                catalogue.select(self.get_option("services")),
                all_services=not self.get_option("services"),
                statuses=self.get_option("statuses"),
                details=self.get_option("instance_details"),
                host_outputs=self._host_outputs(catalogue),
            )
            endpoint = self._text_option("api_endpoint")
            token = self._text_option("api_token")
            key = self._cache_key(path, endpoint, selection)
            records = self._cached(key, cache)
            if records is None:
                records = self._fetch(endpoint, token, selection)
                if self.get_option("cache"):
                    self._cache[key] = {"version": CACHE_VERSION, "hosts": records}
        except NubesError as exc:
            raise AnsibleParserError(f"nubes.cloud.nubes inventory {path}: {exc.msg}") from None
        self._populate(records)

    # -- options ----------------------------------------------------------------------------------

    def _text_option(self, name: str) -> str:
        """A string option, rendered when it is a template (lookups, extra vars) or decrypted when vaulted."""
        value = self.get_option(name)
        if value is not None and self.templar.is_template(value):
            value = self.templar.template(value)
        text = to_text(value) if value is not None else ""
        if not text.strip():
            env = "NUBES_API_ENDPOINT" if name == "api_endpoint" else "NUBES_API_TOKEN"
            raise NubesError(f"{name} is not set: set it in the inventory file or the {env} environment variable")
        return text.strip()

    def _host_outputs(self, catalogue: Any) -> Dict[int, List[str]]:
        result: Dict[int, List[str]] = {}
        for key, codes in (self.get_option("ansible_host_outputs") or {}).items():
            entry = catalogue.lookup(key)
            if entry is None:
                raise NubesError(f"ansible_host_outputs: unknown service {key!r}")
            if isinstance(codes, str):
                codes = [codes]
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise NubesError(f"ansible_host_outputs.{key}: give an output code or a list of output codes")
            result[entry.service_id] = codes
        return result

    # -- cache ------------------------------------------------------------------------------------

    def _cache_key(self, path: str, endpoint: str, selection: Selection) -> str:
        """The standard per-file key plus a digest of what decides the answer (never the token)."""
        query = {
            "endpoint": endpoint,
            "services": sorted(selection.services) if not selection.all_services else "all",
            "statuses": sorted(selection.statuses),
            "details": selection.details,
            "host_outputs": {str(k): list(v) for k, v in sorted(selection.host_outputs.items())},
        }
        digest = hashlib.sha256(json.dumps(query, sort_keys=True).encode("utf-8")).hexdigest()[:12]
        return f"{self.get_cache_key(path)}_{digest}"

    def _cached(self, key: str, cache: bool) -> Optional[List[Dict[str, Any]]]:
        """The cached host records, or None when the cache is off, refreshed (--flush-cache), expired or stale."""
        if not (cache and self.get_option("cache")):
            return None
        try:
            data = self._cache[key]
        except KeyError:
            return None
        hosts = data.get("hosts") if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None
        if not isinstance(hosts, list) or not all(valid_record(h) for h in hosts):
            return None  # another format or a damaged file: read the API again
        return hosts

    # -- API --------------------------------------------------------------------------------------

    def _fetch(self, endpoint: str, token: str, selection: Selection) -> List[Dict[str, Any]]:
        config = ClientConfig(
            endpoint,
            token,
            validate_certs=self.get_option("validate_certs"),
            ca_path=self.get_option("ca_path"),
            timeout=float(self.get_option("request_timeout")),
        )
        client = ApiClient(config, redactor=Redactor([token]))
        try:
            return read_hosts(InventoryApi(client), selection, max(1, int(self.get_option("concurrency"))))
        finally:
            client.close()

    # -- inventory --------------------------------------------------------------------------------

    def _populate(self, records: List[Dict[str, Any]]) -> None:
        strict = self.get_option("strict")
        wanted = [
            (safe_hostname(self._preferred_name(r, strict), r["instance_uid"]), r["instance_uid"]) for r in records
        ]
        names, clashes = unique_hostnames(wanted)
        if clashes:
            shown = ", ".join(clashes[:5]) + (f" and {len(clashes) - 5} more" if len(clashes) > 5 else "")
            self.display.warning(
                f"nubes.cloud.nubes: several instances share the host name {shown}; the oldest keeps it, the others "
                "get the first 8 hex digits of their uid appended (see hostvar instance_uid)"
            )
        default_groups = self.get_option("default_groups")
        for hostname, record in zip(names, records):
            host_vars = untrusted(record)
            self.inventory.add_host(hostname)
            for name, value in host_vars.items():
                self.inventory.set_variable(hostname, name, value)
            if default_groups:
                for group in (f"service_{record['service']}", f"status_{record['status']}"):
                    self.inventory.add_child(self.inventory.add_group(self._sanitize_group_name(group)), hostname)
            self._set_composite_vars(self.get_option("compose"), host_vars, hostname, strict=strict)
            self._add_host_to_composed_groups(self.get_option("groups"), host_vars, hostname, strict=strict)
            self._add_host_to_keyed_groups(self.get_option("keyed_groups"), host_vars, hostname, strict=strict)

    def _preferred_name(self, record: Dict[str, Any], strict: bool) -> str:
        template = self.get_option("hostname")
        if not template:
            return str(record.get("resource_name") or "")
        self.templar.available_variables = untrusted(record)
        try:
            return to_text(self.templar.template(template)) or str(record.get("resource_name") or "")
        except Exception as exc:  # pylint: disable=broad-exception-caught  # any template error, as constructed does
            if strict:
                raise AnsibleError(f"hostname: cannot render {template!r} for {record['instance_uid']}: {exc}") from exc
            return str(record.get("resource_name") or "")
