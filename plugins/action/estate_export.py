# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written, as the module is: the generated modules' action plugin, for nubes.cloud.estate_export (issue 26).
"""Action plugin of nubes.cloud.estate_export: the shared one (issue 26, plugin_utils/in_process.py)."""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.plugin_utils.in_process import NubesModuleAction


class ActionModule(NubesModuleAction):
    """Runs nubes.cloud.estate_export in the controller's process when the target is the controller, else as a
    module."""
