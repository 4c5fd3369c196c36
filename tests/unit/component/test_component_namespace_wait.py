"""The bounded wait for the namespace a component created (issue 25), on a fake API and a fake clock."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import namespace as ns_wait
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo


class FakeDiscovery:
    def namespaced_listable(self) -> List[Any]:
        return []


class FakeApi:
    """Answers GET of the namespace from a script of answers (the last one repeats)."""

    def __init__(self, answers: List[Optional[Dict[str, Any]]]) -> None:
        self.answers = answers
        self.gets = 0
        self.discovery = FakeDiscovery()

    def get(self, _res: Any, _namespace: str, _name: str) -> Optional[Dict[str, Any]]:
        answer = self.answers[min(self.gets, len(self.answers) - 1)]
        self.gets += 1
        return answer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _terminating(*conditions: Dict[str, str]) -> Dict[str, Any]:
    return {"metadata": {"name": "t-1", "deletionTimestamp": "x"}, "status": {"conditions": list(conditions)}}


DISCOVERY_FAILURE = {
    "type": "NamespaceDeletionDiscoveryFailure",
    "status": "True",
    "message": "Discovery failed for some groups, 1 failing: metrics.k8s.io/v1beta1",
}
CONTENT_REMAINING = {
    "type": "NamespaceContentRemaining",
    "status": "True",
    "message": "Some resources are remaining: widgets.shop.nubes.test has 1 resource instances",
}


def test_gone_namespace_ends_the_wait() -> None:
    """issue 25: a namespace that goes ends the wait with no message."""
    clock = Clock()
    api = FakeApi([_terminating(), None])
    assert ns_wait.wait_until_gone(api, "t-1", 600, clock.sleep, clock.monotonic) == ""  # type: ignore[arg-type]
    assert clock.now < 1


def test_deletion_failure_ends_the_wait_after_the_grace_naming_the_condition() -> None:
    """issue 25: a NamespaceDeletion...Failure condition that stays True ends the wait after the grace period, long
    before the timeout, with the namespace, the condition's type and message, and the advice."""
    clock = Clock()
    api = FakeApi([_terminating(DISCOVERY_FAILURE)])
    message = ns_wait.wait_until_gone(api, "t-1", 600, clock.sleep, clock.monotonic)  # type: ignore[arg-type]
    assert ns_wait.FAILURE_GRACE_SECONDS <= clock.now < ns_wait.FAILURE_GRACE_SECONDS + 1
    assert message.startswith("namespace t-1, which this component created, was deleted but cannot finalise")
    assert "NamespaceDeletionDiscoveryFailure: Discovery failed for some groups, 1 failing: metrics.k8s.io" in message
    assert "kubectl get apiservices" in message


def test_content_remaining_waits_until_the_timeout_and_says_what_is_left() -> None:
    """issue 25: content that is still being removed (no failure) is waited for, but only until the timeout; then
    the message quotes the namespace's own word on what is left."""
    clock = Clock()
    api = FakeApi([_terminating(CONTENT_REMAINING)])
    message = ns_wait.wait_until_gone(api, "t-1", 30, clock.sleep, clock.monotonic)  # type: ignore[arg-type]
    assert 30 <= clock.now < 31
    assert "NamespaceContentRemaining: Some resources are remaining: widgets.shop.nubes.test" in message
    assert "keeps a finalizer" in message


def test_a_passing_failure_does_not_end_the_wait() -> None:
    """issue 25: a failure that clears within the grace period (an API that was starting) is no reason to stop."""
    clock = Clock()
    answers: List[Optional[Dict[str, Any]]] = [_terminating(DISCOVERY_FAILURE)] * 10 + [_terminating(), None]
    api = FakeApi(answers)
    assert ns_wait.wait_until_gone(api, "t-1", 600, clock.sleep, clock.monotonic) == ""  # type: ignore[arg-type]


class CreatedNamespacesApi(FakeApi):
    """Namespaces labelled as created by the component; a DELETE makes the next GET answer "gone"."""

    def __init__(self, namespaces: List[Dict[str, Any]], holding: Dict[str, List[str]]) -> None:
        super().__init__([None])
        self.namespaces, self.holding = namespaces, holding
        self.deleted: List[str] = []
        self.selectors: List[Optional[str]] = []

    def list(self, res: Any, namespace: str = "", label_selector: Optional[str] = None, **_kw: Any) -> List[Any]:
        if res.kind == "Namespace":
            self.selectors.append(label_selector)
            return self.namespaces
        return [{"metadata": {"name": name}} for name in self.holding.get(namespace, [])]

    def delete(self, _res: Any, _namespace: str, name: str) -> bool:
        self.deleted.append(name)
        return True


class OneKindDiscovery:
    def namespaced_listable(self) -> List[Any]:
        return [ResourceInfo("", "v1", "ConfigMap", "configmaps", True)]


def _namespace(name: str, **labels: str) -> Dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"p/created-by": "hash", **labels}}}


def test_created_namespaces_are_deleted_unless_something_lives_in_them() -> None:
    """issue 25, C15: of the namespaces the missing-namespaces policy created (found by their label), an empty one
    is deleted and waited for; one that holds a foreign object is kept with a warning naming it; one another
    component took into its set (its owner label) is left to that component."""
    clock = Clock()
    namespaces = [_namespace("empty"), _namespace("busy"), _namespace("adopted", **{"p/owner-id": "other"})]
    api = CreatedNamespacesApi(namespaces, {"busy": ["foreign"]})
    api.discovery = OneKindDiscovery()  # type: ignore[assignment]
    kept, stuck = ns_wait.delete_created_namespaces(
        api,
        "p/created-by=hash",
        "p/owner-id",
        600,
        clock.sleep,
        clock.monotonic,  # type: ignore[arg-type]
    )
    assert api.selectors == ["p/created-by=hash"]
    assert api.deleted == ["empty"]
    assert stuck == ""
    assert kept == [
        "namespace busy was created by this component (missing-namespaces policy) but is kept: it still holds "
        "ConfigMap busy/foreign"
    ]


def test_own_namespace_object_is_waited_for_with_the_bound() -> None:
    """issue 25: the component's own namespace as one of its objects: after the delete step the wait is the bounded
    one (a deletion failure ends it after the grace, naming the condition); an orphaned or gone namespace is no
    wait at all."""
    clock = Clock()
    api = FakeApi([_terminating(DISCOVERY_FAILURE)])
    message = ns_wait.delete_namespace_object(
        lambda: False,
        api,
        "t-1",
        600,
        clock.sleep,
        clock.monotonic,  # type: ignore[arg-type]
    )
    assert ns_wait.FAILURE_GRACE_SECONDS <= clock.now < ns_wait.FAILURE_GRACE_SECONDS + 1
    assert "NamespaceDeletionDiscoveryFailure" in message
    assert ns_wait.delete_namespace_object(lambda: True, api, "t-1", 600) == ""  # type: ignore[arg-type]
