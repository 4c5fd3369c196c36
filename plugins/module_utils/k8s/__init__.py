# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Component engine: applies and deletes sets of Kubernetes objects with the semantics of
SAP's component-operator-runtime (see docs in ``engine.py``).

Layers: ``client`` (connection, discovery cache, call counter) -> ``engine`` (apply/delete on an
inventory) -> pure modules (``policies``, ``ordering``, ``readiness``, ``digest``, ``ownership``,
``normalize``, ``managed_fields``). ``run`` loops an engine call until done or timeout.
"""
