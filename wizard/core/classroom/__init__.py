"""The class view: many students' exported reports read into one table for the instructor or TA.

No Qt here: :mod:`wizard.app.classroom` calls it for ``gpu-setup-wizard class`` and the Report page.
"""
