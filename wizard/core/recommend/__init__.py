"""Step 3, "which PyTorch build": the compatibility knowledge base, the rules (driver × compute
capability × Python/OS), the exact pip/uv/conda commands, and the wheel-index check.
"""
