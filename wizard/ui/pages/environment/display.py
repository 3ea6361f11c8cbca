"""What the Environment page shows: the one-line "what", the note under each mode, the plan
table with its total, and the checks with the free space."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTreeWidgetItem

from wizard.app import install as app_install
from wizard.app.install import SEVERITY_CONFIRM, SEVERITY_ERROR, SEVERITY_OK, format_bytes
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import (
    GREEN,
    GREY,
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
    ORANGE,
    RED,
    marked,
)
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.pages.environment.failure import CONNECTION, NO_BUILD, describe
from wizard.ui.widgets.folded_details import show_folded_details


class EnvironmentDisplay:
    """The showing half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin)."""

    def _what_text(self, plain: bool = False) -> str:
        c = self.candidate()
        if c is None:
            return t("envpage.what.none", self.lang)
        options = self.options()
        reqs = " ".join(options.requirements) if options else ""
        index = app_install.sources_text(options) if options else "PyPI"  # a course's extras: PyPI too
        if plain:
            return t("envpage.what.plain", self.lang, reqs=reqs, index=index)
        return t("envpage.what", self.lang, reqs=f"<b>{_esc(reqs)}</b>", index=_esc(index))

    def _show_what(self) -> None:
        remembered = self.remembered_note()
        self.what_label.setText(self._what_text() + (f"<br>{remembered}" if remembered else ""))

    def _show_notes(self) -> None:
        mode = self.mode()
        problem = marked("✖", RED, self.target_problem) if self.target_problem else ""
        if mode == MODE_NEW_VENV:
            parts = [problem] if problem else []
            data = self.python_combo.currentData()
            if self.resume_state is not None:
                parts.append(f'<span style="color:{ORANGE}">↻ {_esc(t("envpage.venv.resumes", self.lang))}</span>')
            if data is not None and data[0] == "uv":
                key = (data[1], self.settings.python_mirror or None)
                parts.append(_esc(self._uv_text.get(key, t("envpage.uv.asking", self.lang)) if self._uv
                                  else t("install.uv.missing", self.lang)))
            elif data is not None:
                want = self.python_version()
                have = ".".join(str(data[2] or "").split(".")[:2])
                if want and have and have != want:
                    parts.append(marked("⚠", ORANGE, t("envpage.python.other_version", self.lang, have=have,
                                                       want=want)))
            self.venv_note.setText("<br>".join(parts))
            self.venv_note.setVisible(bool(parts))
        elif mode == MODE_EXISTING:
            self.existing_note.setText(problem or self.reuse_note() or _esc(t("envpage.existing.note", self.lang)))
        elif mode == MODE_NEW_CONDA:
            condas = self._condas()
            names, _base = self._conda_facts()
            issue = app_install.conda_name_problem(self.conda_name.text().strip(), names)
            parts = [problem] if problem else []
            if issue is not None:
                parts.append(marked("✖", RED, issue.text(self.lang)))
            if condas:
                parts.append(_esc(t("envpage.conda.uses", self.lang, exe=condas[0].exe,
                                    version=self.python_version() or "?")))
            self.conda_note.setText("<br>".join(parts))
        elif mode == MODE_EXISTING_CONDA:
            self.conda_env_note.setText(problem or _esc(t("envpage.conda.existing_note", self.lang)))
        elif mode == MODE_SKIP:
            self.skip_note.setText(_esc(t("envpage.skip.note", self.lang)))
        elif mode == MODE_RESUME:
            state = self.resume_state
            if state is not None:
                lines = [_esc(t("envpage.resume.note", self.lang))]
                why = self._resume_why(state)
                if why:
                    lines.append(f'<span style="color:{GREY}">{_esc(why)}</span>')
                pins = getattr(state, "pins", None) or state.requirements  # the exact versions when recorded
                if pins:
                    lines.append(_esc(t("g.resume.same", self.lang, reqs=", ".join(pins),
                                        index=state.index_url or "PyPI")))
                self.resume_note.setText("<br>".join(lines))
            self.remove_button.setEnabled(bool(state is not None and state.created_by_wizard))

    def _show_plan(self) -> None:
        lang = self.lang
        self.plan_busy.setVisible(self.plan_running)
        self.plan_tree.clear()
        self.plan_total.setText("")
        self.plan_status.setToolTip("")
        self._show_details("")
        self._show_alternatives()
        plan, err = self.plan, self.plan_error
        if self.target is None:
            self.plan_status.setText(_esc(self.target_problem or ""))
            self.plan_tree.hide()
            return
        if self.plan_running:
            self.plan_status.setText(_esc(t("envpage.plan.resolving", self.lang, index=app_install.sources_text(
                self.options()) if self.options() else "PyPI")))
            self.plan_tree.hide()
            return
        if err is not None:
            options = self.options()
            said = describe(err.failure_kind, err.message.text(lang), err.detail, lang, host=err.host,
                            reqs=" ".join(options.requirements) if options else "",
                            index=app_install.sources_text(options) if options else "PyPI")
            if said.category == CONNECTION:
                self.show_settings()
            advice = f"<br>{_esc(said.advice)}" if said.advice else ""
            self.plan_status.setText(f'<span style="color:{RED}">✖ {_esc(said.headline)}</span>{advice}')
            self.plan_status.setToolTip(said.details)
            self._show_details(said.details)
            self.plan_tree.hide()
            return
        if plan is None:
            self.plan_status.setText(_esc(t("envpage.plan.later", self.lang)))
            self.plan_tree.hide()
            return
        self.plan_status.setText(_esc(t("envpage.plan.exact", self.lang, python=plan.python_version or "?")))
        self.plan_tree.show()
        for f in plan.files:
            if f.satisfied:
                size = t("install.plan.satisfied", self.lang)
            else:
                size = format_bytes(f.size) if f.size is not None else t("install.plan.size_unknown", self.lang)
            item = QTreeWidgetItem([f.name, f.version, size])
            item.setToolTip(0, f.host or f.url)  # where it comes from (a course's extras: PyPI)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if f.installed_version and not f.satisfied:
                item.setToolTip(1, t("envpage.plan.replaces", self.lang, version=f.installed_version))
                item.setText(1, f"{f.version}  (← {f.installed_version})")
            if f.satisfied:
                item.setForeground(2, self.palette().brush(self.palette().ColorGroup.Disabled,
                                                           self.palette().ColorRole.Text))
            self.plan_tree.addTopLevelItem(item)
        rows = min(len(plan.files), 8)
        self.plan_tree.setFixedHeight(self.plan_tree.sizeHintForRow(0) * rows + self.plan_tree.header().height() + 6
                                      if rows else 60)
        self._show_total()

    def _show_total(self) -> None:
        plan = self.plan
        if plan is None:
            return
        if plan.already_satisfied:
            done = _esc(t("install.already_satisfied", self.lang))
            self.plan_total.setText(f'<b style="color:{GREEN}">✓ {done}</b>')
            return
        text = _esc(t("install.plan.total", self.lang, count=len(plan.to_install), size=format_bytes(plan.total_bytes)))
        if plan.unknown_sizes:
            text += " " + _esc(t("envpage.plan.unknown_sizes", self.lang, count=plan.unknown_sizes))
        cached = self.checks.cached_bytes if self.checks is not None else 0
        if cached:
            text += "<br>" + _esc(t("envpage.plan.cached", self.lang, size=format_bytes(cached)))
        self.plan_total.setText(f"<b>{text}</b>" if not cached else text)

    def _show_checks(self) -> None:
        lang = self.lang
        outcome = self.checks
        self.space_form.clear_rows()
        self.confirm_button.hide()
        if self.target is None:
            self.checks_label.setText("")
            return
        if outcome is None:
            self.checks_label.setText(_esc(t("envpage.checks.running", self.lang)))
            return
        free_env, free_cache = outcome.free_env, outcome.free_cache
        self.space_form.set_row("envpage.space.env", self._free_text(free_env, self.target.path))
        self.space_form.set_row("envpage.space.cache", self._free_text(free_cache, self.effective_cache_dir()))
        lines = []
        for c in outcome.preflight.checks:
            if c.severity == SEVERITY_OK:
                continue  # the free space rows above say it
            if c.id == "conda-name" and self.mode() == MODE_NEW_CONDA:
                continue  # said next to the name field
            if c.severity == SEVERITY_CONFIRM:
                mark, colour = ("✓", GREEN) if c.confirmed else ("⚠", RED)
                suffix = t("envpage.checks.confirmed", self.lang) if c.confirmed else t("envpage.checks.needs_confirm",
                                                                                        self.lang)
                lines.append(f'<span style="color:{colour}">{mark}</span>&nbsp;{_esc(c.text(lang))} '
                             f'<i>{_esc(suffix)}</i>')
            elif c.severity == SEVERITY_ERROR:
                lines.append(f'<span style="color:{RED}">✖</span>&nbsp;{_esc(c.text(lang))}')
            else:
                lines.append(f'<span style="color:{ORANGE}">⚠</span>&nbsp;{_esc(c.text(lang))}')
        if outcome.preflight.ok and self.plan_blocks():
            lines.append(marked("✖", RED, t("g.env.not_ready", self.lang)))  # never "ready" under a red plan
        elif outcome.preflight.ok and not self.plan_running:
            ok = _esc(t("envpage.checks.ok", self.lang))
            lines.append(f'<span style="color:{GREEN}">✓</span>&nbsp;<b>{ok}</b>')
        self.checks_label.setText("<br>".join(lines))
        if outcome.preflight.needs_confirmation:
            self.confirm_button.show()
        self._show_total()

    def _free_text(self, disk: tuple[int, int] | None, path: str) -> str:
        if disk is None:
            return t("envpage.space.unknown", self.lang, path=path)
        return t("envpage.space.value", self.lang, free=format_bytes(disk[0]), total=format_bytes(disk[1]), path=path)

    def _resume_why(self, state) -> str:
        """Where and why an unfinished install stopped, in the page's language (the state's own
        ``error`` is the engine's English text: it stays in the details)."""
        if not state.failed_step and not state.error:
            return ""
        step = t(f"install.step.{state.failed_step}", self.lang) if state.failed_step else "?"
        if state.status == "cancelled":
            why = t("g.resume.why.cancelled", self.lang)
        elif state.status == "running":
            why = t("g.resume.why.interrupted", self.lang)
        else:
            why = describe(app_install.failure_kind(state.error_kind), state.error or "", "", self.lang).headline
        return t("g.resume.stopped_at", self.lang, step=step, why=why)

    def _show_details(self, details: str) -> None:
        """The tool's raw words, folded away under "Details"."""
        show_folded_details(self.details_button, self.details_label, details)

    def _show_alternatives(self) -> None:
        """The builds the index has (one button each), while the plan says it lacks this one."""
        for button in self.alt_buttons:
            button.deleteLater()
        self.alt_buttons = []
        err = self.plan_error
        if err is None or err.failure_kind != NO_BUILD or self.target is None:
            self.alt_label.hide()
            return
        self.alt_label.show()
        if self.alternatives_running:
            self.alt_label.setText(_esc(t("g.env.alt.looking", self.lang)))
            return
        if not self.alternatives:
            self.alt_label.setText(_esc(t("g.env.alt.none", self.lang)) if self.alternatives is not None else "")
            return
        self.alt_label.setText(_esc(t("g.env.alt.title", self.lang)))
        for c in self.alternatives:
            button = QPushButton(t("g.env.alt.use", self.lang, torch=c.torch, variant=c.variant))
            button.setObjectName(f"useBuild_{c.torch}_{c.variant}")
            button.clicked.connect(lambda _on=False, _c=c: self.use_build(_c))
            self.alt_row.insertWidget(self.alt_row.count() - 1, button)
            self.alt_buttons.append(button)

    def _show_go_on(self, stopped: bool = False) -> None:
        """After a click on Install during a re-plan: "checking, then on by itself" (or why not)."""
        if self.go_on:
            self.go_on_label.setText(f'<b>{_esc(t("g.env.waiting", self.lang))}</b>')
            self.go_on_label.show()
            self.plan_busy.show()
        elif stopped:
            self.go_on_label.setText(marked("✖", RED, t("g.env.go_on_stopped", self.lang)))
            self.go_on_label.show()
        else:
            self.go_on_label.hide()
