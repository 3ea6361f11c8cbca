"""Entry script of the frozen app: the same ``main()`` as the ``gpu-setup-wizard`` console script (``wizard.__main__``).

Both executables of the bundle (the windowed ``gpu-setup-wizard`` and the console
``gpu-setup-wizard-cli``) start here; only their Windows subsystem differs.
"""

import sys

from wizard.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
