"""The Environment page's checks before anything is touched: free space where the environment
and the cache go, a writable folder, path length, and the refusals (the wizard's own runtime, a
system Python, conda base) that only an explicit confirmation lets through; "ready" only when
the plan can run too; and, after a click on Install during a re-plan, "checking, then on by
itself".

A widget that owns its state: the checks' answer for the current target, whether it is on its
way, whether the checks themselves crashed. It says ``confirm_requested`` when the student asks
to confirm the refusals.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from wizard.app.install import SEVERITY_CONFIRM, SEVERITY_ERROR, SEVERITY_OK, CheckOutcome, EnvTarget, format_bytes
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import GREEN, ORANGE, RED, marked
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.widgets.info_form import InfoForm


class PreflightView(QGroupBox):
    """The checks box of the Environment page."""

    confirm_requested = Signal()

    def __init__(self, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang_of = lang_of
        self.checks: CheckOutcome | None = None
        self.checks_running = False
        self.checks_failed = False  # the checks themselves crashed: no answer is coming for this choice
        layout = QVBoxLayout(self)
        self.space_form = InfoForm(lang_of)
        layout.addLayout(self.space_form)
        self.checks_label = QLabel()
        self.checks_label.setObjectName("checksLabel")
        self.checks_label.setWordWrap(True)
        self.checks_label.setTextFormat(Qt.TextFormat.RichText)
        self.checks_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.checks_label)
        self.go_on_label = QLabel()
        self.go_on_label.setObjectName("goOnLabel")
        self.go_on_label.setWordWrap(True)
        self.go_on_label.setTextFormat(Qt.TextFormat.RichText)
        self.go_on_label.hide()
        layout.addWidget(self.go_on_label)
        confirm_row = QHBoxLayout()
        self.confirm_button = QPushButton()
        self.confirm_button.setObjectName("confirmButton")
        self.confirm_button.clicked.connect(self.confirm_requested)
        confirm_row.addWidget(self.confirm_button)
        confirm_row.addStretch(1)
        layout.addLayout(confirm_row)
        self.confirm_button.hide()

    @property
    def lang(self) -> str:
        return self._lang_of()

    # --- the answer --------------------------------------------------------------------------------
    def asking(self) -> None:
        self.checks_running, self.checks_failed = True, False

    def forget(self) -> None:
        self.checks = None

    def set_answer(self, outcome: CheckOutcome) -> None:
        self.checks_running, self.checks = False, outcome

    def set_crashed(self, text: str) -> None:
        """The checks raised: no answer for this choice (Install stays off until it changes)."""
        self.checks_running, self.checks, self.checks_failed = False, None, True
        self.checks_label.setText(marked("✖", RED, text.strip().splitlines()[0] if text.strip() else "?"))

    @property
    def cached_bytes(self) -> int:
        return self.checks.cached_bytes if self.checks is not None else 0

    # --- what it shows -----------------------------------------------------------------------------
    def show_checks(self, target: EnvTarget | None, cache_dir: str, *, hide_conda_name: bool, plan_blocks: bool,
                    plan_running: bool) -> None:
        """The free space and every check that is not plainly fine; "ready" only for a plan that
        can run (never under a red plan, nor while it is being worked out)."""
        lang = self.lang
        outcome = self.checks
        self.space_form.clear_rows()
        self.confirm_button.hide()
        if target is None:
            self.checks_label.setText("")
            return
        if outcome is None:
            self.checks_label.setText(_esc(t("environment.checks.running", lang)))
            return
        self.space_form.set_row("environment.space.env", self._free_text(outcome.free_env, target.path))
        self.space_form.set_row("environment.space.cache", self._free_text(outcome.free_cache, cache_dir))
        lines = []
        for c in outcome.preflight.checks:
            if c.severity == SEVERITY_OK:
                continue  # the free space rows above say it
            if c.id == "conda-name" and hide_conda_name:
                continue  # said next to the name field
            if c.severity == SEVERITY_CONFIRM:
                mark, colour = ("✓", GREEN) if c.confirmed else ("⚠", RED)
                suffix = t("environment.checks.confirmed" if c.confirmed else "environment.checks.needs_confirm", lang)
                lines.append(f'<span style="color:{colour}">{mark}</span>&nbsp;{_esc(c.text(lang))} '
                             f'<i>{_esc(suffix)}</i>')
            elif c.severity == SEVERITY_ERROR:
                lines.append(f'<span style="color:{RED}">✖</span>&nbsp;{_esc(c.text(lang))}')
            else:
                lines.append(f'<span style="color:{ORANGE}">⚠</span>&nbsp;{_esc(c.text(lang))}')
        if outcome.preflight.ok and plan_blocks:
            lines.append(marked("✖", RED, t("environment.not_ready", lang)))  # never "ready" under a red plan
        elif outcome.preflight.ok and not plan_running:
            ok = _esc(t("environment.checks.ok", lang))
            lines.append(f'<span style="color:{GREEN}">✓</span>&nbsp;<b>{ok}</b>')
        self.checks_label.setText("<br>".join(lines))
        if outcome.preflight.needs_confirmation:
            self.confirm_button.show()

    def _free_text(self, disk: tuple[int, int] | None, path: str) -> str:
        if disk is None:
            return t("environment.space.unknown", self.lang, path=path)
        return t("environment.space.value", self.lang, free=format_bytes(disk[0]), total=format_bytes(disk[1]),
                 path=path)

    def show_go_on(self, waiting: bool, stopped: bool = False) -> None:
        """After a click on Install during a re-plan: "checking, then on by itself" (or why not)."""
        if waiting:
            self.go_on_label.setText(f'<b>{_esc(t("environment.waiting", self.lang))}</b>')
            self.go_on_label.show()
        elif stopped:
            self.go_on_label.setText(marked("✖", RED, t("environment.go_on_stopped", self.lang)))
            self.go_on_label.show()
        else:
            self.go_on_label.hide()

    def retranslate(self) -> None:
        lang = self.lang
        self.setTitle(t("environment.checks.title", lang))
        self.confirm_button.setText(t("environment.confirm.button", lang))
        self.space_form.retranslate()


__all__ = ["PreflightView"]
