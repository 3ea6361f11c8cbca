"""The fuzz suite: every reader of a user's or the disk's input, fed mutations of real outputs.

``targets.py`` names the readers and what each may answer; ``strategies.py`` builds inputs from
the real captures (``seeds.py``); ``test_fuzz.py`` runs them with a fixed example budget in the
normal suite, and ``scripts/fuzz --minutes N`` runs them long.
"""
