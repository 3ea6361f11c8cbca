"""Step 1–2, "what machine is this": OS, CPU, RAM, disk, Python interpreters, conda, display
adapters, NVML and nvidia-smi (every output format), merged into one :class:`Detection` with findings.
"""
