"""Page 8 — VRAM: what fits on this GPU, and which lessons need Colab or the cloud.

The arithmetic is pure and takes a few milliseconds, so it runs on the GUI thread as the
student changes a setting; the stacked bar (QPainter) is created the first time the page
is shown.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.core.base.i18n import t
from wizard.core.machine.models import STATUS_OK
from wizard.ui import colours
from wizard.ui.pages.base import BasePage, PageId, scroll_body
from wizard.ui.session_model import SessionModel

GIB = 1 << 30
PRESETS = [("colab_t4", 15109 / 1024), ("rtx3060", 12.0), ("rtx4090", 24.0), ("cloud_a100_40", 40.0),
           ("cloud_80", 80.0)]
VERDICT_COLOURS = {"runs_here": colours.OK, "needs_colab": colours.WARN, "needs_cloud": colours.FAIL,
                   "too_big": colours.MUTED}
MARKS = {"runs_here": "✔", "needs_colab": "☁", "needs_cloud": "☁", "too_big": "✖"}
CUSTOM = "__custom__"


class VramPage(BasePage):
    page_id = PageId.VRAM

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_vram")
        self.bar = None
        self.built = False
        self.last_estimate = None
        model.detection_finished.connect(lambda _d: self.built and self._fill_gpu_choices())
        super().retranslate()

    def _build(self) -> None:
        """The page's widgets and the estimator (wizard.core.vram.estimate loads its catalogue) on first show."""
        from types import SimpleNamespace

        from wizard.core.vram import workloads as vram_workloads
        from wizard.core.vram.catalogue import catalogue_models
        from wizard.core.vram.estimate import estimate
        from wizard.core.vram.inputs import MODES, VramInputError, parse_param_count
        from wizard.core.vram.precisions import PRECISIONS
        from wizard.core.vram.units import format_gib, format_params, units_explanation, vram_from_gpu

        # The estimator loads with the page's first show, not at start-up: its names, in one place.
        self.core = SimpleNamespace(catalogue_models=catalogue_models, estimate=estimate,
                                    VramInputError=VramInputError, parse_param_count=parse_param_count,
                                    format_gib=format_gib, format_params=format_params,
                                    vram_from_gpu=vram_from_gpu, units_explanation=units_explanation,
                                    MODES=MODES, PRECISIONS=PRECISIONS)
        self.judge_workloads = vram_workloads.judge_workloads

        self.built = True
        layout = scroll_body(self)

        self.inputs_box = QGroupBox()
        form = QFormLayout(self.inputs_box)
        self.gpu_combo = _shrinking_combo("gpuCombo")
        self.gb_spin = QDoubleSpinBox()
        self.gb_spin.setRange(1, 4096)
        self.gb_spin.setDecimals(1)
        self.gb_spin.setSuffix(" GiB")  # the page's one unit (wizard.core.vram.units)
        self.gb_spin.setValue(8)
        gpu_row = QHBoxLayout()
        gpu_row.addWidget(self.gpu_combo, 1)
        gpu_row.addWidget(self.gb_spin)
        self.gpu_label = QLabel()
        form.addRow(self.gpu_label, gpu_row)

        self.model_combo = _shrinking_combo("modelCombo")
        self.params_edit = QLineEdit()
        self.params_edit.setObjectName("paramsEdit")
        self.params_edit.setPlaceholderText("7B, 350M, 1.5e9")
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.params_edit)
        self.model_label = QLabel()
        form.addRow(self.model_label, model_row)

        self.mode_combo = _shrinking_combo("modeCombo")
        self.precision_combo = _shrinking_combo("precisionCombo")
        self.batch_spin = QSpinBox()
        self.batch_spin.setRange(1, 65536)
        self.context_spin = QSpinBox()
        self.context_spin.setRange(0, 1 << 21)
        self.context_spin.setSpecialValueText(t("vram.page.default_context", self.lang))
        # two rows: six widgets in one row made the page wider than the window (issue 16.8)
        setting_row = QHBoxLayout()
        setting_row.addWidget(self.mode_combo, 1)
        setting_row.addWidget(self.precision_combo, 1)
        self.setting_label = QLabel()
        form.addRow(self.setting_label, setting_row)
        size_row = QHBoxLayout()
        self.batch_label, self.context_label = QLabel(), QLabel()
        size_row.addWidget(self.batch_spin)
        size_row.addSpacing(12)
        size_row.addWidget(self.context_label)
        size_row.addWidget(self.context_spin)
        size_row.addStretch(1)
        form.addRow(self.batch_label, size_row)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        layout.addWidget(self.inputs_box)
        self._build_results(layout)

    def _build_results(self, layout: QVBoxLayout) -> None:
        self.result_box = QGroupBox()
        result_layout = QVBoxLayout(self.result_box)
        self.verdict = QLabel()
        self.verdict.setObjectName("vramVerdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        result_layout.addWidget(self.verdict)
        self.bar_holder = QVBoxLayout()
        result_layout.addLayout(self.bar_holder)
        self.assumptions = QLabel()
        self.assumptions.setObjectName("vramAssumptions")
        self.assumptions.setWordWrap(True)
        result_layout.addWidget(self.assumptions)
        layout.addWidget(self.result_box)

        self.lessons_box = QGroupBox()
        lessons_layout = QVBoxLayout(self.lessons_box)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("workloadTable")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(320)
        lessons_layout.addWidget(self.table)
        self.units = QLabel()
        self.units.setObjectName("vramUnits")
        self.units.setWordWrap(True)
        lessons_layout.addWidget(self.units)
        layout.addWidget(self.lessons_box)

        self._fill_static_choices()
        for signal in (self.gpu_combo.currentIndexChanged, self.model_combo.currentIndexChanged,
                       self.mode_combo.currentIndexChanged, self.precision_combo.currentIndexChanged,
                       self.batch_spin.valueChanged, self.context_spin.valueChanged, self.gb_spin.valueChanged):
            signal.connect(self.recompute)
        self.params_edit.textChanged.connect(self.recompute)
        self.gpu_combo.currentIndexChanged.connect(self._gpu_choice_changed)
        # only a change the student makes counts as a choice (the report shows the estimate then);
        # the page's own refills block these signals
        for signal in (self.gpu_combo.activated, self.model_combo.activated, self.mode_combo.activated,
                       self.precision_combo.activated, self.batch_spin.valueChanged, self.context_spin.valueChanged,
                       self.gb_spin.valueChanged, self.params_edit.textEdited):
            signal.connect(self._chosen)
        self.retranslate()

    # choices --------------------------------------------------------------------------------
    def _fill_static_choices(self) -> None:
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for spec in self.core.catalogue_models():
            self.model_combo.addItem(f"{spec.name} — {self.core.format_params(spec.params)}", spec.id)
        self.model_combo.addItem("", CUSTOM)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData("llama-2-7b")))
        self.model_combo.blockSignals(False)

    def _fill_gpu_choices(self) -> None:
        combo = self.gpu_combo
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        d = self.model.session.detection
        if d and d.nvidia.status == STATUS_OK:
            for gpu in d.nvidia.gpus:
                total, used = self.core.vram_from_gpu(gpu)
                if total:
                    combo.addItem(t("vram.page.this_gpu", self.lang, name=gpu.name or "GPU",
                                    total=self.core.format_gib(total)),
                                  ("gpu", total, used))
        for key, gb in PRESETS:  # the size in GiB, the page's one unit, not the "16 GB" of a product name
            label = t("h.vram.preset", self.lang, name=t(f"h.vram.preset.{key}", self.lang),
                      size=self.core.format_gib(gb * GIB, 1))
            combo.addItem(label, ("preset", int(gb * GIB), 0))
        combo.addItem(t("vram.page.custom_gb", self.lang), ("custom", None, 0))
        index = combo.findData(current) if current is not None else -1
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)
        self._gpu_choice_changed()

    def _chosen(self, *_args) -> None:
        self.model.session.vram_chosen = True

    def _gpu_choice_changed(self) -> None:
        data = self.gpu_combo.currentData()
        self.gb_spin.setEnabled(bool(data) and data[0] == "custom")
        self.recompute()

    # QWizardPage ------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        if not self.built:
            self._build()
        if self.bar is None:
            from wizard.ui.widgets.vram_bar import VramBar

            self.bar = VramBar()
            self.bar_holder.addWidget(self.bar)
        if not self.gpu_combo.count():
            self._fill_gpu_choices()
        self.recompute()

    # computation --------------------------------------------------------------------------
    def vram(self) -> tuple[int | None, int]:
        data = self.gpu_combo.currentData()
        if not data:
            return None, 0
        kind, total, used = data
        if kind == "custom":
            return int(self.gb_spin.value() * GIB), 0
        return total, used

    def recompute(self) -> None:
        if not self.built or not self.gpu_combo.count():
            return
        lang = self.lang
        custom = self.model_combo.currentData() == CUSTOM
        self.params_edit.setVisible(custom)
        total, used = self.vram()
        self._fill_table(self.judge_workloads(total, used))
        try:
            model = self.core.parse_param_count(self.params_edit.text()) if custom else self.model_combo.currentData()
            est = self.core.estimate(model, mode=self.mode_combo.currentData(),
                                     precision=self.precision_combo.currentData(),
                           batch=self.batch_spin.value(), context=self.context_spin.value() or None,
                           vram_total_bytes=total, vram_used_bytes=used)
        except self.core.VramInputError as exc:
            self.verdict.setText(f'<span style="color:#c62828">✖ {exc.message(lang)}</span>')
            self.assumptions.setText("")
            self.last_estimate = None
            return
        self.last_estimate = est
        self.model.session.vram = est
        if est.fits is None:
            head = t("vram.page.no_gpu_total", self.lang, total=self.core.format_gib(est.total_bytes))
            colour = colours.TEXT
        elif est.fits:
            head = t("vram.page.fits", self.lang, total=self.core.format_gib(est.total_bytes),
                     usable=self.core.format_gib(est.usable_bytes),
                     free=self.core.format_gib(est.headroom_bytes))
            colour = colours.OK
        else:
            head = t("vram.page.does_not_fit", self.lang, total=self.core.format_gib(est.total_bytes),
                     usable=self.core.format_gib(est.usable_bytes))
            colour = colours.FAIL
        self.verdict.setText(f'<span style="font-size:14px; font-weight:600; color:{colour}">{head}</span>')
        basis = [t(f"vram.page.activation_basis.{est.activation_basis}", lang)] if est.activation_basis != "none" else []
        self.assumptions.setText("• " + "\n• ".join(basis + _plain_notes(est, lang)))
        if self.bar is not None:
            self.bar.show_estimate(est, lang)

    def _fill_table(self, judgments) -> None:
        lang = self.lang
        self.table.setRowCount(len(judgments))
        for row, j in enumerate(judgments):
            title = QTableWidgetItem(f"{MARKS.get(j.verdict, '•')}  {j.title(lang)}")
            title.setForeground(QColorCache.get(VERDICT_COLOURS.get(j.verdict, colours.TEXT)))
            title.setToolTip(j.workload.setup(lang))
            verdict = QTableWidgetItem(j.text(lang))
            verdict.setToolTip(j.workload.setup(lang))
            self.table.setItem(row, 0, title)
            self.table.setItem(row, 1, verdict)
        self.table.resizeRowsToContents()

    def retranslate(self) -> None:
        super().retranslate()
        if not self.built:
            return
        self.inputs_box.setTitle(t("vram.page.inputs", self.lang))
        self.result_box.setTitle(t("vram.page.result", self.lang))
        self.lessons_box.setTitle(t("vram.page.lessons", self.lang))
        self.gpu_label.setText(t("vram.page.gpu", self.lang) + ":")
        self.model_label.setText(t("vram.page.model", self.lang) + ":")
        self.setting_label.setText(t("vram.page.setting", self.lang) + ":")
        self.batch_label.setText(t("h.vram.batch_label", self.lang) + ":")
        self.context_label.setText(t("h.vram.context_label", self.lang))
        self.context_spin.setSpecialValueText(t("vram.page.default_context", self.lang))
        self.model_combo.setItemText(self.model_combo.count() - 1, t("vram.page.custom_model", self.lang))
        self.table.setHorizontalHeaderLabels([t("vram.page.col.lesson", self.lang), t("vram.page.col.verdict",
                                                                                      self.lang)])
        self.units.setText(self.core.units_explanation(self.lang))
        for combo, keys, prefix in ((self.mode_combo, self.core.MODES, "vram.mode."),
                                    (self.precision_combo, list(self.core.PRECISIONS), "vram.precision.")):
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for key in keys:
                combo.addItem(t(prefix + key, self.lang), key)
            combo.setCurrentIndex(max(0, combo.findData(current if current else keys[0 if prefix.endswith("mode.")
                                                                                       else 1])))
            combo.blockSignals(False)
        if self.gpu_combo.count():
            self._fill_gpu_choices()
        self.recompute()


def _plain_notes(est, lang: str) -> list[str]:
    """The estimate's assumptions for a first-year student: where the page has a plain-words
    version of a note (``h.`` + its key: no kernel names, no "KV heads") that one, else the
    note as the report and the CLI print it."""
    from wizard.core.base.i18n import catalogue
    from wizard.core.vram.estimate import Note

    plain = catalogue()
    return [Note("h." + n.key, n.params).text(lang) if "h." + n.key in plain else n.text(lang) for n in est.notes]


def _shrinking_combo(name: str) -> QComboBox:
    """A combo that can be narrower than its longest item (the item shows elided, the full
    text in the list and the tooltip), so a long GPU or model name never widens the page."""
    combo = QComboBox()
    combo.setObjectName(name)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(12)
    combo.currentTextChanged.connect(combo.setToolTip)
    return combo


class QColorCache:
    """QBrush per colour name, made once (the table is refilled on every change)."""

    _cache: dict = {}

    @classmethod
    def get(cls, name: str):
        from PySide6.QtGui import QBrush, QColor

        if name not in cls._cache:
            cls._cache[name] = QBrush(QColor(name))
        return cls._cache[name]
