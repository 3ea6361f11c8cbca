"""Maintainer tools (run from a checkout, not by students): ``python -m wizard.tools.<name>``."""
