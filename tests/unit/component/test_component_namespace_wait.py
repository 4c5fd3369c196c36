"""The bounded wait for the namespace a component created (issue 25), on a fake API and a fake clock."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import namespace as ns_wait


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
