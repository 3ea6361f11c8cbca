"""``python -m wizard`` does what the ``gpu-setup-wizard`` command does."""

import sys

from wizard.cli import main

if __name__ == "__main__":
    sys.exit(main())
