"""The Environment page's layout: the "what" line, then the parts that hold their own state --
where it goes (:mod:`.target_chooser`), the advanced settings (:mod:`.settings_panel`), the plan
preview (:mod:`.plan_preview`) and the checks (:mod:`.preflight_view`) -- and the offline bundle
row. Built once, on first show."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from wizard.ui.pages.base import scroll_body
from wizard.ui.pages.environment.plan_preview import PlanPreview
from wizard.ui.pages.environment.preflight_view import PreflightView
from wizard.ui.pages.environment.settings_panel import SettingsPanel
from wizard.ui.pages.environment.target_chooser import TargetChooser


class EnvironmentPanels:
    """The build half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage`: the page is
    the "what" line and four parts, each holding its own state and saying what changed."""

    def _build(self) -> None:
        self.built = True
        layout = scroll_body(self)

        self.what_label = QLabel()
        self.what_label.setObjectName("whatLabel")
        self.what_label.setWordWrap(True)
        self.what_label.setTextFormat(Qt.TextFormat.RichText)
        self.what_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.what_label)
        self.last_build_button = QPushButton()  # the last run's build, offered (never chosen silently)
        self.last_build_button.setObjectName("lastBuildButton")
        self.last_build_button.clicked.connect(self.use_last_build)
        self.last_build_button.hide()
        row = QHBoxLayout()
        row.addWidget(self.last_build_button)
        row.addStretch(1)
        layout.addLayout(row)

        # the parts that hold their own state and say what changed (signals)
        self.chooser = TargetChooser(lambda: self.session, self.store, self.current_lang)
        self.chooser.changed.connect(self._changed)
        self.chooser.mode_changed.connect(self._mode_changed)
        self.chooser.remove_requested.connect(self.remove_unfinished)
        layout.addWidget(self.chooser)
        self.settings_panel = SettingsPanel(self.settings, self.current_lang)
        self.settings_panel.changed.connect(self._settings_changed)
        layout.addWidget(self.settings_panel)
        self.preview = PlanPreview(self.current_lang)
        self.preview.build_chosen.connect(self.use_build)
        self.preview.connection_failed.connect(self.show_settings)
        layout.addWidget(self.preview)
        self.preflight = PreflightView(self.current_lang)
        self.preflight.confirm_requested.connect(self.confirm_refusals)
        layout.addWidget(self.preflight)
        from wizard.ui.pages.bundle_panel import add_bundle_row  # an offline bundle instead of a download

        self.bundle_row = add_bundle_row(self, layout)
        layout.addStretch(1)
