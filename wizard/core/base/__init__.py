"""The shared base every stage stands on: the host (the one door to the machine), the one process
runner every child goes through (``process``), messages in two
languages, data files, privacy, atomic file writes (``files``) and the ``"schema"`` check of
every JSON read back (``schema``). Knows nothing of GPUs, PyTorch or the flow.
"""
