# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``nubes.cloud.component`` module's helpers: sources, rendering, connection, persistence, planning, runs."""
