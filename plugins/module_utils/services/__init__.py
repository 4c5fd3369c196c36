# Copyright: (c) nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generated data descriptions of the Nubes services (one file per service, see generator/)."""
