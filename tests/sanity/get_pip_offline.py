"""Offline stand-in for ansible-test's pip bootstrap script (get-pip.py).

ansible-test downloads get-pip.py from a host that is not reachable from every machine; it uses
the cached copy at ~/.ansible/test/cache/get_pip_<version>.py when one exists. tests/sanity/run.sh
copies this file there when the cache is missing. It installs the pip bundled with Python
(ensurepip) and then lets that pip install what ansible-test asked for, dropping the
--no-setuptools/--no-wheel flags that current pip no longer accepts.
"""

import ensurepip
import os
import subprocess
import sys

DROPPED_FLAGS = ("--no-setuptools", "--no-wheel")


def main():
    """Bootstrap pip, then install the requested packages with it."""
    # ensurepip sets PIP_CONFIG_FILE=/dev/null in this process; the install below must see the machine's pip
    # configuration (e.g. a CA bundle for a TLS-inspecting proxy, which pip before 24.2 needs from there).
    environment = dict(os.environ)
    ensurepip.bootstrap()
    args = [arg for arg in sys.argv[1:] if arg not in DROPPED_FLAGS]
    sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", *args], env=environment))


if __name__ == "__main__":
    main()
