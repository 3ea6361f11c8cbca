"""Page 8 — VRAM: what fits on this GPU, and which lessons need Colab or the cloud.

The arithmetic is pure and takes a few milliseconds, so it runs on the GUI thread as the
student changes a setting; the stacked bar (QPainter) is created the first time the page
is shown. "Measure my model…" runs the measuring probe in the target environment off the GUI
thread (:class:`~wizard.ui.probe_process.ProbeProcess`) and shows its answer in the same bar.
Everything the page computes comes from the application layer (:mod:`wizard.app.vram`).

On a PC without an NVIDIA GPU the page starts on "this PC: no GPU", judges the small lessons for
its CPU, and offers Colab's T4 and the other cards as what-ifs, named so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.pages.base import BasePage, PageId, scroll_body
from wizard.ui.session_model import SessionModel

if TYPE_CHECKING:  # the estimator and the probe runner load with the page's first show
    from wizard.app.vram import Measurement
    from wizard.ui.probe_process import ProbeProcess
    from wizard.ui.widgets.vram_bar import VramBar

GIB = 1 << 30
PRESETS = [("colab_t4", 15109 / 1024), ("rtx3060", 12.0), ("rtx4090", 24.0), ("cloud_a100_40", 40.0),
           ("cloud_80", 80.0)]
VERDICT_COLOURS = {"runs_here": colours.OK, "needs_colab": colours.WARN, "needs_cloud": colours.FAIL,
                   "too_big": colours.MUTED}
MARKS = {"runs_here": "✔", "runs_on_cpu": "✔", "needs_colab": "☁", "needs_cloud": "☁", "too_big": "✖"}
VERDICT_COLOURS["runs_on_cpu"] = colours.OK
CUSTOM = "__custom__"
MEASURED = "__measured__"


class VramPage(BasePage):
    page_id = PageId.VRAM

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_vram")
        self.bar: VramBar | None = None
        self.built = False
        self.last_estimate = None
        model.detection_finished.connect(lambda _d: self._fill_gpu_choices() if self.built else None)
        super().retranslate()

    def _build(self) -> None:
        """The page's widgets and the use cases (wizard.app.vram loads the estimator) on first show."""
        from wizard.app import vram as vram_app

        self.app = vram_app  # the estimator loads with the page's first show, not at start-up
        self.measurement: Measurement | None = None  # the last model measured
        self.probe: ProbeProcess | None = None  # made on the first measurement
        self.measure_request = None

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
        self._build_measure(layout)
        self._build_results(layout)

    def _build_measure(self, layout: QVBoxLayout) -> None:
        """"Measure my model…": a torchvision/timm/Hugging Face name or a Python file, measured in
        the target environment on the meta device (no GPU memory, no download)."""
        from wizard.ui.widgets.python_picker import PythonPicker

        self.measure_box = QGroupBox()
        self.measure_box.setObjectName("measureBox")
        box = QVBoxLayout(self.measure_box)
        self.measure_intro = QLabel()
        self.measure_intro.setWordWrap(True)
        box.addWidget(self.measure_intro)
        row = QHBoxLayout()
        self.spec_edit = QLineEdit()
        self.spec_edit.setObjectName("measureSpec")
        self.spec_edit.setPlaceholderText("torchvision:resnet50, timm:convnext_tiny, hf:bert, model.py:make")
        self.spec_edit.returnPressed.connect(self.start_measure)
        self.browse_button = QPushButton()
        self.browse_button.setObjectName("measureBrowse")
        self.browse_button.clicked.connect(self._browse_model_file)
        self.measure_button = QPushButton()
        self.measure_button.setObjectName("measureButton")
        self.measure_button.clicked.connect(self.start_measure)
        row.addWidget(self.spec_edit, 1)
        row.addWidget(self.browse_button)
        row.addWidget(self.measure_button)
        box.addLayout(row)
        self.picker = PythonPicker(self.model.session)
        box.addWidget(self.picker)
        self.measure_status = QLabel()
        self.measure_status.setObjectName("measureStatus")
        self.measure_status.setWordWrap(True)
        box.addWidget(self.measure_status)
        layout.addWidget(self.measure_box)

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
        for spec in self.app.catalogue_models():
            self.model_combo.addItem(f"{spec.name} — {self.app.format_params(spec.params)}", spec.id)
        self.model_combo.addItem("", CUSTOM)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData("llama-2-7b")))
        self.model_combo.blockSignals(False)

    def _fill_gpu_choices(self) -> None:
        """This machine's GPUs first; on a PC without one, "this PC: no GPU" first; then the
        cards a student may ask about, each named as a what-if (Colab's T4 as Colab's)."""
        combo = self.gpu_combo
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        gpus = self.app.detected_gpus(self.model.session.detection)
        for gpu in gpus:
            combo.addItem(t("vram.page.this_gpu", self.lang, name=gpu.name or "GPU",
                            total=self.app.format_gib(gpu.total_bytes)), ("gpu", gpu.total_bytes, gpu.used_bytes, gpu.name))
        if not gpus:
            combo.addItem(t("vram.page.no_gpu_here", self.lang), ("none", None, 0))
        for key, gb in PRESETS:  # the size in GiB, the page's one unit, not the "16 GB" of a product name
            size = self.app.format_gib(gb * GIB, 1)
            label = (t("vram.page.colab_t4", self.lang, size=size) if key == "colab_t4" else
                     t("vram.page.what_if", self.lang, name=t(f"vram.page.gpu_preset.{key}", self.lang), size=size))
            combo.addItem(label, ("preset", int(gb * GIB), 0, key))
        combo.addItem(t("vram.page.custom_gb", self.lang), ("custom", None, 0))
        index = combo.findData(current) if current is not None else -1
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)
        self._gpu_choice_changed()

    def _chosen(self, *_args) -> None:
        self.app.record(self.model.session, self.model.session.vram, chosen=True)

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
        self.picker.refresh()  # the environment chosen on the Verify page, or installed since
        self.recompute()

    # computation --------------------------------------------------------------------------
    def vram(self) -> tuple[int | None, int]:
        data = self.gpu_combo.currentData()
        if not data:
            return None, 0
        kind, total, used = data[:3]
        if kind == "custom":
            return int(self.gb_spin.value() * GIB), 0
        return total, used

    def gpu(self):
        """The card chosen, as the use cases take it (None: this PC, which has no GPU)."""
        data = self.gpu_combo.currentData()
        total, used = self.vram()
        if not data or total is None:
            return None
        name = None  # a typed size: named by its size
        if data[0] == "gpu":
            name = data[3]
        elif data[0] == "preset":
            name = f"{t(f'vram.page.gpu_preset.{data[3]}', self.lang)} ({self.app.format_gib(total, 1)})"
        return self.app.GpuMemory(name, total, used, what_if=data[0] != "gpu")

    def _ram_total(self) -> int | None:
        d = self.model.session.detection
        return getattr(getattr(d, "system", None), "ram_total_bytes", None)

    def recompute(self) -> None:
        if not self.built or not self.gpu_combo.count():
            return
        lang = self.lang
        custom = self.model_combo.currentData() == CUSTOM
        self.params_edit.setVisible(custom)
        gpu = self.gpu()
        ram = self._ram_total() if gpu is None or not gpu.what_if else None
        self._fill_table(self.app.judge_lessons(gpu, ram))
        self.lessons_box.setTitle(t("vram.page.lessons" if gpu is not None and not gpu.what_if else
                                    "vram.page.lessons_no_gpu" if gpu is None else "vram.page.lessons_what_if", lang))
        if self.model_combo.currentData() == MEASURED and self.measurement is not None:
            self._show_measurement()
            return
        try:
            model = self.app.parse_param_count(self.params_edit.text()) if custom else self.model_combo.currentData()
            est = self.app.estimate_for(model, mode=self.mode_combo.currentData(),
                                        precision=self.precision_combo.currentData(), batch=self.batch_spin.value(),
                                        context=self.context_spin.value() or None, gpu=gpu)
        except self.app.VramInputError as exc:
            self.verdict.setText(f'<span style="color:#c62828">✖ {exc.message(lang)}</span>')
            self.assumptions.setText("")
            self.last_estimate = None
            return
        self._show_estimate(est, gpu)
        basis = [t(f"vram.page.activation_basis.{est.activation_basis}", lang)] if est.activation_basis != "none" else []
        self.assumptions.setText("• " + "\n• ".join(basis + self.app.plain_notes(est, lang)))

    def _show_estimate(self, est, gpu, prefix: str = "") -> None:
        """The verdict line and the bar for an estimate (or a measurement's), recorded for the report."""
        lang = self.lang
        self.last_estimate = est
        self.app.record(self.model.session, est)
        fmt = self.app.format_gib
        if est.fits is None:  # this PC has no GPU: say so, and what Colab's T4 would do
            t4 = self.app.colab_t4()
            on_t4 = est.total_bytes <= t4.usable_bytes
            head = t("vram.page.no_gpu_verdict", lang, total=fmt(est.total_bytes),
                     t4=t("vram.page.t4_fits" if on_t4 else "vram.page.t4_does_not_fit", lang,
                          usable=fmt(t4.usable_bytes)))
            colour = colours.TEXT
        elif est.fits:
            head = t("vram.page.fits", lang, total=fmt(est.total_bytes), usable=fmt(est.usable_bytes),
                     free=fmt(est.headroom_bytes))
            colour = colours.OK
        else:
            key = "vram.page.does_not_fit" if est.batch > 1 else "vram.page.does_not_fit_batch1"
            head = t(key, lang, total=fmt(est.total_bytes), usable=fmt(est.usable_bytes))
            colour = colours.FAIL
        if gpu is not None and gpu.what_if:
            head = t("vram.page.what_if_prefix", lang, card=gpu.name or fmt(gpu.total_bytes)) + " " + head
        self.verdict.setText(f'<span style="font-size:14px; font-weight:600; color:{colour}">{prefix}{head}</span>')
        if self.bar is not None:
            self.bar.show_estimate(est, lang)

    # measuring ------------------------------------------------------------------------------
    def _browse_model_file(self) -> None:
        from wizard.ui.widgets.file_dialogs import open_file_name  # Documents first, in the window's language

        path = open_file_name(self, t("vram.page.measure.browse_title", self.lang), self.lang, "Python (*.py)")
        if path:
            self.spec_edit.setText(f"{path}:make")
            self.measure_status.setText(t("vram.page.measure.file_hint", self.lang))

    def measure_setting(self):
        """The page's mode, precision and batch as a measurement takes them (LoRA for QLoRA)."""
        mode = self.mode_combo.currentData() or "train"
        return self.app.measure_request(self.spec_edit.text(), batch=self.batch_spin.value(),
                                        mode="lora" if mode == "qlora" else mode,
                                        dtype=self.precision_combo.currentData() or "fp32")

    def start_measure(self) -> None:
        """Run the measuring probe in the chosen environment; the window stays live."""
        from wizard.ui.probe_process import ProbeProcess

        if self.probe is not None and self.probe.running:
            return
        python = self.picker.path()
        try:
            request = self.measure_setting()
        except self.app.VramInputError as exc:
            self.measure_status.setText(f'<span style="color:#c62828">✖ {exc.message(self.lang)}</span>')
            return
        if not python:
            self.measure_status.setText(t("vram.page.measure.no_python", self.lang))
            return
        if self.probe is None:
            self.probe = ProbeProcess(self)
            self.probe.finished.connect(self._measured)
        self.measure_request = request
        self.measure_button.setEnabled(False)
        self.measure_status.setText(t("vram.measure.running", self.lang, spec=request.spec, python=python))
        self.probe.start(python, self.app.MEASURE_PROBE, request.probe_args(), timeout_s=self.app.MEASURE_TIMEOUT_S)

    def _measured(self, outcome) -> None:  # GUI thread, after the probe's last line
        self.measure_button.setEnabled(True)
        if self.measure_request is None:
            return
        m = self.app.measurement_from_outcome(self.measure_request, outcome, self.gpu())
        self.measurement = m
        if m.estimate is None:
            self.measure_status.setText(f'<span style="color:#c62828">✖ {m.headline(self.lang)}</span>')
            return
        self.app.record_measurement(self.model.session, m)
        self.measure_status.setText(m.headline(self.lang))
        combo = self.model_combo
        combo.blockSignals(True)
        index = combo.findData(MEASURED)
        if index < 0:
            combo.addItem("", MEASURED)
            index = combo.count() - 1
        combo.setItemText(index, t("vram.page.measure.item", self.lang, spec=m.request.spec))
        combo.setCurrentIndex(index)
        combo.blockSignals(False)
        self.recompute()

    def _show_measurement(self) -> None:
        """The measured model against the card chosen and at the batch set (no new probe run)."""
        lang = self.lang
        gpu = self.gpu()
        assert self.measurement is not None  # shown only once a model was measured
        m = self.app.measurement_for(self.measurement, gpu, self.batch_spin.value())
        est = m.estimate
        assert est is not None  # a measurement for a setting carries its estimate
        self._show_estimate(est, gpu, prefix=("" if m.measured else "⚠ "))
        self.app.record_measurement(self.model.session, m)
        lines = [m.headline(lang)]
        if m.measured:
            card = gpu if gpu is not None else self.app.colab_t4()
            batch = m.largest_batch if gpu is not None else self.app.largest_batch_on(m, card)
            lines.append(self.app.largest_batch_line(batch or 0, card, m.request.batch, lang))
        self.assumptions.setText("• " + "\n• ".join(lines + self.app.plain_notes(est, lang)))

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
        self.batch_label.setText(t("vram.page.batch_label", self.lang) + ":")
        self.context_label.setText(t("vram.page.context_label", self.lang))
        self.context_spin.setSpecialValueText(t("vram.page.default_context", self.lang))
        self.model_combo.setItemText(self.model_combo.findData(CUSTOM), t("vram.page.custom_model", self.lang))
        if self.measurement is not None and self.model_combo.findData(MEASURED) >= 0:
            self.model_combo.setItemText(self.model_combo.findData(MEASURED),
                                         t("vram.page.measure.item", self.lang, spec=self.measurement.request.spec))
        self.measure_box.setTitle(t("vram.page.measure.title", self.lang))
        self.measure_intro.setText(t("vram.page.measure.intro", self.lang))
        self.browse_button.setText(t("vram.page.measure.browse", self.lang))
        self.measure_button.setText(t("vram.page.measure.button", self.lang))
        self.picker.retranslate()
        self.table.setHorizontalHeaderLabels([t("vram.page.col.lesson", self.lang), t("vram.page.col.verdict",
                                                                                      self.lang)])
        self.units.setText(self.app.units_explanation(self.lang))
        for combo, keys, prefix in ((self.mode_combo, self.app.MODES, "vram.mode."),
                                    (self.precision_combo, list(self.app.PRECISIONS), "vram.precision.")):
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
