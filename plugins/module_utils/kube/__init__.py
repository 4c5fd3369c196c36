# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way this collection talks to Kubernetes.

``connection`` builds a client from the connection options (one documented precedence, see
``connection.connect``); ``client`` is the REST client (typed errors, 429/Retry-After as client-go, dry-run,
call counter) with ``discovery``; ``records`` stores JSON records in ConfigMaps and Secrets with
resourceVersion preconditions; ``clock`` has the time helpers. The state backend, its leases, the component
record and the reconciler all use it.
"""
