"""Step 3, "which PyTorch build": the compatibility knowledge base, the rules (driver × compute
capability × Python/OS), the exact pip/uv/conda commands, and the wheel-index check.
"""

# Registers the signed-update table with compat.load() (update imports compat, not the reverse).
from wizard.core.recommend import update as _update  # noqa: F401, E402
