"""The status colours of the window's text, chosen to be readable.

Why a module: each page had its own copy of Material's greens and oranges, and the orange
(#ef6c00, 2.7:1 on the window's grey) and the green (#2e7d32, 4.5:1) were too light for text.
These meet WCAG AA (4.5:1) for text on the window's background (#efefef) and on white;
tests/gui/layout_check.contrast_problems measures it on the pages that use them.
"""

from __future__ import annotations

OK = "#1b6e20"  # green: passed, fits, runs here
WARN = "#a34700"  # dark orange: works, with something to know
FAIL = "#c62828"  # red: failed, does not fit
INFO = "#1565c0"  # blue: a note
MUTED = "#555555"  # grey that is still readable: skipped, set apart
TEXT = "#333333"  # plain emphasis
