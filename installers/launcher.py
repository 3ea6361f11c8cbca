"""Entry script of the frozen app: the same ``main()`` as the ``gpu-setup-wizard`` console script.

Both executables of the bundle (the windowed ``gpu-setup-wizard`` and the console
``gpu-setup-wizard-cli``) start here; only their Windows subsystem differs.
"""

import sys

from wizard.cli import main

if __name__ == "__main__":
    sys.exit(main())
