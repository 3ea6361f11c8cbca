"""The application layer both faces share: the typed session and the use cases (detect, recommend,
plan and run an install, verify, bench, report, history). The GUI and the CLI call these; a
decision made here is made once.
"""
