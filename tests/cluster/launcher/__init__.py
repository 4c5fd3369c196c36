"""Launcher of the local Kubernetes control plane for tests (issue 6).

`python -m tests.cluster.launcher up|down|env|status`; standard library only, so `tests/cluster/up`
works with any Python 3.9+ before the venv exists.
"""
