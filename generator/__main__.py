"""Entry point: ``python -m generator fetch|render|check|all``."""

import sys

from generator.cli import main

sys.exit(main())
