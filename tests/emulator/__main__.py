"""`python -m tests.emulator serve|token ...`"""

import sys

from tests.emulator.cli import main

sys.exit(main())
