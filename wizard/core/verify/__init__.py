"""Steps 6–7, "prove it works": run the probes in the target environment and turn their events
into the verification checklist and the CPU-vs-GPU benchmark report.
"""
