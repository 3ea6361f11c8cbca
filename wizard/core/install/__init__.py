"""Steps 4–5, "make the environment and install": targets and their pre-flight checks, the exact
plan of files, resumable downloads, the step runner, and recovery (resume, remove, restore).
"""
