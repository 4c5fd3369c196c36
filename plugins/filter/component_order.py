# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter nubes.cloud.component_order: the role's components in dependency order (issue 25); docs in the .yml."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.nubes.cloud.plugins.plugin_utils.component_order import DependencyError, order_components


def component_order(items, state="present"):
    """Order the components by depends_on; a cycle or an unknown name fails the task (before any write)."""
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise AnsibleFilterError("component_order: expected a list of components (dicts with name and namespace)")
    try:
        return order_components(items, state)
    except DependencyError as exc:
        raise AnsibleFilterError(f"component dependencies: {exc}") from None


class FilterModule:
    """The collection's filters."""

    def filters(self):
        """Filter name -> function."""
        return {"component_order": component_order}
