"""The Environment page's parts: shared marks and dialogs (``common``), the widgets it builds
(``panels``), the lists it fills from the detection (``lists``) and what it shows (``display``).
The page itself is :mod:`wizard.ui.pages.environment_page`; every decision it shows is made in
:mod:`wizard.app.install`.
"""
