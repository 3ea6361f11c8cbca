"""Reusable widgets: the step list, findings, the live GPU plot."""
