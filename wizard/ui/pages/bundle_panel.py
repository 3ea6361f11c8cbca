"""The Environment page's "Install from a bundle folder…": a fresh venv from an offline bundle.

Why a row of its own: the lab's USB stick replaces the whole recommendation-and-download path,
so it sits beside the page's targets, not inside them. Checking the hashes of a few GB of wheels
and pip's install take minutes: both run on a worker thread (the app layer's
:func:`wizard.app.bundle.install_from_bundle`), the row says what happens.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtWidgets import QBoxLayout, QFileDialog

from wizard.app import verify as app_verify
from wizard.core.base.i18n import t
from wizard.ui.widgets.button_row import ButtonRow
from wizard.ui.workers import submit


def _work(host: Any, folder: str, venv: str, detection: Any = None) -> tuple[bool, list[Any], str | None]:
    """(ok, messages, env python); a refused bundle is a message, not a failure of the thread."""
    from wizard.app.bundle import BundleError, install_from_bundle

    try:
        result = install_from_bundle(host, folder, venv, detection=detection)  # a several-build bundle: this PC's
    except BundleError as exc:
        return False, [exc.message], None
    return result.ok, list(result.messages), result.env_python


class BundleRow(ButtonRow):
    def __init__(self, page: Any, layout: QBoxLayout) -> None:
        self.messages: list[Any] = []
        self.running = False
        self.task: Any = None
        self.env_python: str | None = None
        super().__init__(page, layout, "installFromBundle", "bundleStatus")

    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.page, t("bundle.ui.pick_folder", self.lang))
        if not folder:
            return
        venv, _ = QFileDialog.getSaveFileName(self.page, t("bundle.ui.pick_venv", self.lang),
                                              os.path.join(os.path.expanduser("~"), "bundle-env"))
        if venv:
            self.start(folder, venv)

    def start(self, folder: str, venv: str) -> None:
        """Check and install on a worker thread; the row reports."""
        self.running, self.messages, self.env_python = True, [], None
        self.button.setEnabled(False)
        self.retranslate()
        session = self.page.model.session
        self.task = submit(_work, session.host, folder, venv, session.detection, on_done=self._done,
                           on_failed=self._failed)

    def _done(self, outcome: tuple[bool, list[Any], str | None]) -> None:
        ok, self.messages, self.env_python = outcome
        if ok and self.env_python:  # Verify checks the environment the bundle made
            app_verify.use_python(self.page.model.session, self.env_python)
        self._finish()

    def _failed(self, text: str) -> None:
        from wizard.core.base.i18n import msg

        self.messages = [msg("bundle.ui.failed", error=text.splitlines()[0])]
        self._finish()

    def _finish(self) -> None:
        self.running = False
        self.button.setEnabled(True)
        self.retranslate()

    def retranslate(self) -> None:
        lang = self.lang
        self.button.setText(t("bundle.ui.button", lang))
        self.button.setToolTip(t("bundle.cli.from.help", lang))
        lines = [m.text(lang) for m in self.messages]
        if self.running:
            lines.insert(0, t("bundle.ui.running", lang))
        self.label.setText("\n".join(lines))


def add_bundle_row(page: Any, layout: QBoxLayout) -> BundleRow:
    return BundleRow(page, layout)


__all__ = ["BundleRow", "add_bundle_row"]
