"""The shared base every stage stands on: the host (the one door to the machine), messages in two
languages, data files, privacy. Knows nothing of GPUs, PyTorch or the flow.
"""
