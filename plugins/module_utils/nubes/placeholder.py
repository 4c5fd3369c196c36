# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The placeholder of a new instance: `POST /instances` for one service and display name (K3: the API makes the
uid), what a taken name means (issue 14), and a create whose outcome is unknown read back (issue 24; P42, beyond the
seed: never a duplicate, never an untracked instance).

Recording is the caller's job: the instance task writes `create_requested` (with the moment the request leaves)
before `post`, and the uid `post` or `read_back` returns right after.
"""

from __future__ import annotations

import time
from typing import List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import write_outcome
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, NubesError, OutcomeUnknownError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import STATUS_CREATE_REQUESTED, Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import NameTaken


class Placeholder:
    """The instance `resource_name` of one service, as a create makes it."""

    def __init__(self, api: DeckApi, service_id: int, name: str) -> None:
        self.api = api
        self.service_id = service_id
        self.name = name

    def live(self) -> List[Instance]:
        """Live instances with the name, oldest first (list items: no params)."""
        return self.api.find_live_by_name(self.service_id, self.name)

    def post(self) -> str:
        """The new uid. Raises OutcomeUnknownError (see `read_back`), NameTaken for a live holder of the name, or a
        NubesError naming what the API refused; after those nothing was made."""
        try:
            return self.api.create_instance(self.service_id, self.name)
        except OutcomeUnknownError:
            raise
        except ApiError as exc:
            if exc.status == 400 and "not unique" in exc.msg.lower():
                raise self._name_taken(exc) from None
            raise

    def read_back(self, exc: OutcomeUnknownError, requested_at: float) -> str:
        """Never post twice and never guess: the name is read until the placeholder appears or the request's outcome
        window has passed. Raises a NubesError that says what the next run does when none or several appeared."""
        seconds = write_outcome.window(self.api.client.config.timeout, answered=exc.status is not None)
        found = write_outcome.read_back(self.live, requested_at + seconds)
        if len(found) == 1:
            return found[0].uid
        if found:
            raise NubesError(
                f"{exc.msg}; {len(found)} instances named {self.name!r} appeared since "
                f"({', '.join(i.uid for i in found)}), so this task cannot tell which one it made and records none. "
                "Delete the ones you do not want (Cloud Console), then re-run: the run adopts the one that is left"
            ) from None
        raise NubesError(
            f"{exc.msg}; no instance named {self.name!r} has appeared in the {seconds:.0f} s since the request. The "
            "API may still create it: the state keeps the request, so the next run adopts the instance if it has "
            "appeared, and sends the create again only if it has not"
        ) from None

    def awaited(self, record: Optional[Record]) -> List[Instance]:
        """A record that holds a create whose outcome was never known (a crash, a timeout, a 5xx) while nothing
        carries the name yet: the request may still take effect, so the name is read until that request's window
        has passed. Only then may a create be sent again, or the record be dropped."""
        if record is None or record.status != STATUS_CREATE_REQUESTED or record.requested_at is None:
            return []
        requested_at = record.requested_at
        if record.window_passed:
            return []  # the run that sent it read until its window ended (a crash leaves no such mark)
        until = requested_at + write_outcome.window(self.api.client.config.timeout, answered=False)
        if until <= time.time():
            return []
        return write_outcome.read_back(self.live, until)

    def _name_taken(self, exc: ApiError) -> NubesError:
        """Issue 14: `400 ... not unique`. A live holder is looked up and decided on again (adopt or a clear error
        naming it); deleted holders keep their names, so then the only way on is another name."""
        holders = self.api.named(self.service_id, self.name)
        live = [i.uid for i in holders if i.live]
        if live:
            return NameTaken(live)
        return NubesError(
            f"the API refuses resource_name {self.name!r}: the display name is not unique for this service. It is "
            f"held by deleted instance(s) {', '.join(i.uid for i in holders) or '(not listed)'}, and deleted "
            "instances keep their display names: choose another resource_name",
            diagnostics=exc.msg,
        )
