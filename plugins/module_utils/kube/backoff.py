# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The backoff between retries of Kubernetes calls, shared by the component engine's run loop
(``component.reconcile``) and the Kubernetes state backend (``nubes.state_objects``): one sequence, one place."""

from __future__ import annotations


class Backoff:
    """Max of: exponential 50 ms -> 1 s; 0 for 20 tries then 2 s; 0 for 50 tries then 10 s (reference 6.3)."""

    def __init__(self) -> None:
        self.tries = 0

    def reset(self) -> None:
        """Back to fast retries (the inventory changed, or a new activity started)."""
        self.tries = 0

    def next_delay(self) -> float:
        """Seconds to wait before the next step."""
        tries = self.tries
        self.tries += 1
        exponential = min(0.05 * (2**tries), 1.0)
        slow = 2.0 if tries >= 20 else 0.0
        slower = 10.0 if tries >= 50 else 0.0
        return max(exponential, slow, slower)
