# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reconciler: applies and deletes sets of Kubernetes objects with the semantics of SAP's
component-operator-runtime ``pkg/reconciler`` (its API: ``reconciler.Reconciler``). It knows nothing of component
status (``component`` owns that and the run loop).

Layers: ``kube`` (client, discovery) -> ``apply_waves`` / ``delete_waves`` (one step on an inventory, sharing
``steps``) -> pure modules (``policies``, ``ordering``, ``readiness``, ``digest``, ``ownership``, ``normalize``,
``managed_fields``, ``inventory``); ``writer`` does the writes, ``live`` the reads.
"""
