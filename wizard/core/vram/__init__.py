"""Step 8, "what fits": itemised VRAM estimates per precision and mode, the model catalogue, and the
course's lessons judged for a GPU.

``estimate`` (the itemised estimate; the module the CLI and the page import) is built from
``inputs`` (what may be typed, and its errors), ``units``, ``precisions``, ``catalogue``
(models.json) and ``memory`` (the formulas); ``largest`` finds the biggest model that fits,
``accelerate`` reproduces ``accelerate estimate-memory``, ``workloads`` judges the course's
lessons and ``text`` prints it all for the terminal.
"""
