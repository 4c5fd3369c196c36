"""Issue 14 through the task skeleton: a create the API refuses with `400 ... not unique` is found and decided once
more with the holders it named as a fact of the situation, so that lifecycle.decide() rules on it (stubbed deck-api,
a real state file)."""

from __future__ import annotations

from typing import Any, Dict

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from tests.emulator.assumptions import LIST_ITEM_FIELDS
from tests.unit.nubes.conftest import RunFactory, stored_record
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"


def holder_the_lookup_misses(deck: FakeDeck, service_id: int, name: str) -> Dict[str, str]:
    """POST /instances is refused with `400 not unique` for a live holder of `name` that the instance list shows only
    to the refusal's own look-up (an eventually consistent list): the task's lookups by name never see it. Returns
    {"holder": uid} once the POST came."""
    seen: Dict[str, str] = {}

    def hook(request: httpx.Request) -> Any:
        if request.method == "POST" and request.url.path.endswith("/instances"):
            if "holder" not in seen:
                seen["holder"] = deck.add_instance(service_id, name)
            seen["shown"] = "once"
            return httpx.Response(400, json={"ERROR": f"displayName '{name}' is not unique for service {service_id}"})
        if request.method == "GET" and request.url.path.endswith("/instances") and "holder" in seen:
            if seen.pop("shown", ""):
                return None  # the refusal's look-up (placeholder.Placeholder._name_taken) lists it
            items = [i for uid, i in deck.instances.items() if i["serviceId"] == service_id and uid != seen["holder"]]
            listed = [{k: v for k, v in i.items() if k in LIST_ITEM_FIELDS} for i in items]
            return httpx.Response(200, json={"results": listed, "total": len(listed)})
        return None

    deck.hooks.append(hook)
    return seen


@pytest.mark.parametrize("adopt", [False, True])
def test_a_holder_the_lookup_never_shows_is_refused_by_decide(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str, adopt: bool
) -> None:
    """Issue 14, P28: the API refuses the create for a live holder of the name that the lookup by name (looked again)
    does not show. The second pass decides with that fact: decide() refuses, naming the holder and both ways on, with
    the diagnostics (the flag, the two choices); no second create is sent, no duplicate is made, no record is left."""
    seen = holder_the_lookup_misses(deck, 12, "b12")
    args = {"resource_name": "b12", "display_name": "b12", "resource_realm": REALM, "adopt_existing_on_create": adopt}
    with pytest.raises(NubesError) as info:
        run(services["s3"], **args)
    holder = seen["holder"]
    assert info.value.msg == (
        f"the API refuses resource_name: the display name is taken by {holder}, which the lookup by name does not "
        "show; adopt it by instance_uid with adopt_existing_on_create=true, or choose another resource_name"
    )
    diagnostics = info.value.details["diagnostics"]
    assert f"Controlling flag: adopt_existing_on_create={'true' if adopt else 'false'}" in diagnostics
    assert "Choose one:" in diagnostics and holder in diagnostics
    assert [e for e in deck.log if e == ("POST", "/instances")] == [("POST", "/instances")]
    assert [uid for uid, i in deck.instances.items() if i["displayName"] == "b12"] == [holder]
    assert stored_record(state_path, "s3", "b12") is None
