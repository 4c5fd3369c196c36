# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory plugin nubes.cloud.nubes: service catalogue, instance reading, host names (controller side)."""
