"""The Environment page's parts, each a widget (or a plain object) that holds its own state and
talks through signals: the "what" line (``display``), the target chooser (``target_chooser``), the
advanced settings (``settings_panel``), the plan preview (``plan_preview``), the pre-flight checks
(``preflight_view``), the answers from the worker pool (``answers``) and what the last run left
(``reuse_view``); the Install page's progress (``install_progress``) and outcome
(``install_outcome``); shared marks and dialogs (``common``). The pages themselves are
:mod:`wizard.ui.pages.environment_page` and :mod:`wizard.ui.pages.install_page`; every decision
they show is made in :mod:`wizard.app.install`.
"""
