# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Universal core of the generated nubes.cloud cloud modules (PRIVATE to the collection)."""
