"""Page 2 — GPU & driver: NVML and nvidia-smi merged, each GPU, findings, Rescan, live plot.

The live plot samples NVML about once a second, on a pool thread, only while this page is
visible and only when there is a GPU; pyqtgraph is imported the first time it is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QBoxLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from wizard.app.detect import STATUS_OK, Detection, GpuInfo
from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.findings_view import FindingsView
from wizard.ui.widgets.info_form import InfoForm
from wizard.ui.workers import submit

if TYPE_CHECKING:  # pyqtgraph and NVML load on first use
    from wizard.app.detect import NvmlSampler, SourceResult
    from wizard.ui.widgets.live_plot import LiveGpuPlot

SAMPLE_INTERVAL_MS = 1000


def _v(value: object, unit: str = "", lang: str = "en") -> str:
    if value is None or value == "":
        return t("common.na", lang)
    if isinstance(value, float):
        value = f"{value:.0f}" if value.is_integer() else f"{value:.1f}"
    return f"{value}{unit}"


def _processes(gpu: GpuInfo, lang: str, limit: int = 4) -> str:
    """Process names (not full paths: they do not wrap and they name the user) with memory."""
    if not gpu.processes:
        return t("common.none_found", lang)
    parts = []
    for p in gpu.processes[:limit]:
        name = (p.name or str(p.pid)).replace("\\", "/").rsplit("/", 1)[-1]
        mem = f" {p.used_memory_mib:.0f} MiB" if p.used_memory_mib is not None else ""
        parts.append(f"{name}{mem}")
    more = len(gpu.processes) - limit
    return ", ".join(parts) + (f" … (+{more})" if more > 0 else "")


def gpu_rows(gpu: GpuInfo, lang: str) -> list[tuple[str, str, str | None]]:
    """(message key, value, field name for the source tooltip) for every detected field."""
    mem = t("common.na", lang)
    if gpu.memory_total_mib is not None:
        total = gpu.memory_total_mib
        mem = f"{_v(gpu.memory_used_mib, lang=lang)} / {total:.0f} MiB  ({total / 1024:.1f} GiB)"
    cc = gpu.compute_capability
    rows = [
        ("gpu.name", _v(gpu.name, lang=lang), "name"),
        ("gpu.cc", f"{cc}  (sm_{cc.replace('.', '')})" if cc else t("common.na", lang), "compute_capability"),
        ("gpu.architecture", _v(gpu.architecture, lang=lang), "architecture"),
        ("gpu.memory", mem, "memory_total_mib"),
        ("gpu.memory_free", _v(gpu.memory_free_mib, " MiB", lang=lang), "memory_free_mib"),
        ("gpu.temperature", _v(gpu.temperature_c, " °C", lang=lang), "temperature_c"),
        ("gpu.fan", _v(gpu.fan_percent, " %", lang=lang), "fan_percent"),
        ("gpu.power", f"{_v(gpu.power_draw_w, ' W', lang=lang)} / {_v(gpu.power_limit_w, ' W', lang=lang)}",
         "power_draw_w"),
        ("gpu.utilization", f"{_v(gpu.utilization_gpu_percent, ' %', lang=lang)}  "
                            f"({t('gpu.memory_util', lang)} {_v(gpu.utilization_memory_percent, ' %', lang=lang)})",
         "utilization_gpu_percent"),
        ("gpu.clocks", f"SM {_v(gpu.clock_sm_mhz, lang=lang)} / {_v(gpu.clock_sm_max_mhz, ' MHz', lang=lang)}, "
                       f"mem {_v(gpu.clock_mem_mhz, ' MHz', lang=lang)}", "clock_sm_mhz"),
        ("gpu.pstate", _v(gpu.pstate, lang=lang), "pstate"),
        ("gpu.pcie", gpu.pcie_text(t("common.na", lang)), "pcie_gen_current"),
        ("gpu.driver_model", _v(gpu.driver_model, lang=lang), "driver_model"),
        ("gpu.mig", _v(gpu.mig_mode, lang=lang) + (f"  ({len(gpu.mig_devices)})" if gpu.mig_devices else ""),
         "mig_mode"),
        ("gpu.pci", _v(gpu.pci_bus_id, lang=lang), "pci_bus_id"),
        ("gpu.uuid", _v(gpu.uuid, lang=lang), "uuid"),
        ("gpu.vbios", _v(gpu.vbios_version, lang=lang), "vbios_version"),
        ("gpu.processes", _processes(gpu, lang), None),
    ]
    return rows


class GpuPage(BasePage):
    page_id = PageId.GPU

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_gpu")

    def _build(self) -> None:
        """The widgets, on first show (BasePage.ensure_built)."""
        model = self.model
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-size: 14px; font-weight: 600;")
        head.addWidget(self.headline, 1)
        self.rescan = QPushButton()
        self.rescan.setObjectName("rescanButton")
        self.rescan.clicked.connect(self.model.start_detection)
        head.addWidget(self.rescan)
        outer.addLayout(head)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        self.body_layout = QVBoxLayout(body)
        self.body_layout.setContentsMargins(0, 0, 6, 0)
        # What matters most first: the findings, then the facts and the live plot side by side.
        self.findings_box = QGroupBox()
        findings_layout = QVBoxLayout(self.findings_box)
        self.findings = FindingsView(lang_of=self.current_lang)
        findings_layout.addWidget(self.findings)
        self.body_layout.addWidget(self.findings_box)
        columns = self.columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        left = QVBoxLayout()
        self.driver_box = QGroupBox()
        self.driver_form = InfoForm(self.current_lang)
        self.driver_box.setLayout(self.driver_form)
        left.addWidget(self.driver_box)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("gpuTabs")
        left.addWidget(self.tabs)
        left.addStretch(1)
        columns.addLayout(left, 3)
        self.plot_box = QGroupBox()
        self.plot_layout = QVBoxLayout(self.plot_box)
        self.plot_box.setMinimumWidth(250)
        self.plot_box.hide()
        columns.addWidget(self.plot_box, 2, Qt.AlignmentFlag.AlignTop)
        self.body_layout.addLayout(columns)
        self.body_layout.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)

        self.plot: LiveGpuPlot | None = None  # created on first use
        self.sampler: NvmlSampler | None = None  # opened on a pool thread
        self._sampling = False
        self._tasks: list = []
        self.timer = QTimer(self)
        self.timer.setInterval(SAMPLE_INTERVAL_MS)
        self.timer.timeout.connect(self._request_sample)
        self.gpu_forms: list[InfoForm] = []

        model.detection_started.connect(self._on_started)
        model.detection_finished.connect(lambda _d: self.fill())
        model.detection_failed.connect(lambda _e: self.fill())

    # QWizardPage -----------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.fill()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._maybe_start_sampling()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.built:
            self._arrange()

    def _arrange(self) -> None:
        """Facts and live plot side by side when there is room, the plot under the facts when
        not: side by side, a long path kept the page wider than a small window (issue 16.8)."""
        facts = max(self.driver_box.minimumSizeHint().width(), self.tabs.minimumSizeHint().width())
        room = self.width() - 24  # the scroll bar and the margins
        wide = not self.plot_box.isVisible() or room >= facts + self.plot_box.minimumWidth() + 12
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.columns.direction() != direction:
            self.columns.setDirection(direction)

    def hideEvent(self, event) -> None:  # noqa: N802
        super().hideEvent(event)
        if self.built:
            self.timer.stop()

    # detection ----------------------------------------------------------------------------
    def _on_started(self) -> None:
        self.rescan.setEnabled(False)
        self.headline.setText(t("system.page.detecting", self.lang))

    def _gpus(self) -> list[GpuInfo]:
        d = self.model.session.detection
        return d.nvidia.gpus if d and d.nvidia.status == STATUS_OK else []

    def fill(self) -> None:
        self.rescan.setEnabled(not self.model.detecting)
        d: Detection | None = self.model.session.detection
        if d is None:
            if self.model.session.detection_error:
                self.headline.setText(t("system.page.failed", self.lang,
                                        error=self.model.session.detection_error.splitlines()[0]))
            return
        nv = d.nvidia
        gpus = self._gpus()
        if gpus:
            names = ", ".join(g.name or "?" for g in gpus)
            self.headline.setText(t("gpu.page.headline_ok", self.lang, count=len(gpus), names=names,
                                    driver=nv.driver_version or "?", cuda=nv.cuda_version or "?"))
        else:
            self.headline.setText(t("doctor.nvidia_status." + nv.status, self.lang))
        self.driver_form.set_row("doctor.driver", nv.driver_version or t("common.na", self.lang))
        self.driver_form.set_row("doctor.cuda_max", nv.cuda_version or t("common.na", self.lang),
                                 t("gpu.page.cuda_tooltip", self.lang))
        self.driver_form.set_row("gpu.page.nvml_version", nv.nvml_version or t("common.na", self.lang))
        smi = nv.smi_path or t("common.none_found", self.lang)
        if nv.smi_version and nv.smi_version != nv.driver_version:
            smi += f"  (NVIDIA-SMI {nv.smi_version})"
        self.driver_form.set_row("gpu.page.smi_path", smi)
        self.driver_form.set_row("doctor.sources", "; ".join(self._source_text(s) for s in nv.sources)
                                 or t("common.na", self.lang))
        self.tabs.clear()
        self.gpu_forms = []
        for gpu in gpus:
            page = QWidget()
            form = InfoForm(self.current_lang)
            page.setLayout(form)
            for key, value, field_name in gpu_rows(gpu, self.lang):
                source = gpu.sources.get(field_name) if field_name else None
                tip = t("gpu.page.source", self.lang, source=source) if source else None
                if key == "gpu.processes" and gpu.processes:  # the shown list is short; all of it here
                    tip = value + "\n\n" + "\n".join(_processes(gpu, self.lang, limit=len(gpu.processes)).split(", "))
                form.set_row(key, value, tip)
            self.gpu_forms.append(form)
            self.tabs.addTab(page, f"GPU {gpu.index}")
        self.tabs.setVisible(bool(gpus))
        self.findings.set_findings(d.findings)
        self._maybe_start_sampling()

    # live plot ----------------------------------------------------------------------------
    def _maybe_start_sampling(self) -> None:
        if not self.isVisible() or not self._gpus():
            self.timer.stop()
            self.plot_box.setVisible(bool(self._gpus()) and self.plot is not None)
            self._arrange()
            return
        if self.plot is None:
            from wizard.ui.widgets.live_plot import LiveGpuPlot  # pyqtgraph: only now

            self.plot = LiveGpuPlot(lang_of=self.current_lang)
            self.plot_layout.addWidget(self.plot)
        self.plot_box.show()
        self._arrange()
        if not self.timer.isActive():
            self.timer.start()
            self._request_sample()

    def _request_sample(self) -> None:
        if self._sampling:
            return  # the previous sample has not come back: never pile up
        self._sampling = True
        self._tasks = [submit(self._sample_in_pool, on_done=self._on_samples, on_failed=self._on_sample_failed)]

    def _source_text(self, source: SourceResult) -> str:
        """"NVML: 정상" -- what one source said, in the student's words (its name stays: it is a
        program's name; its status was an internal code like "no-driver")."""
        from wizard.core.base.i18n import has

        key = f"doctor.nvidia_status.{source.status}"
        status = (t("gpu.page.source_ok", self.lang) if source.status == STATUS_OK
                  else t(key, self.lang) if has(key) else source.status)
        name = "NVML" if source.source == "nvml" else source.source
        return f"{name}: {status.rstrip('.')}"

    def _sample_in_pool(self) -> list:
        from wizard.app.detect import NvmlSampler

        if self.sampler is None:
            sampler = NvmlSampler(self.model.session.host.nvml())
            if not sampler.open():
                raise RuntimeError(sampler.error or "NVML unavailable")
            self.sampler = sampler
        return self.sampler.sample()

    def _on_samples(self, samples: list) -> None:
        self._sampling = False
        if self.plot is not None:
            self.plot.add_samples(samples)

    def _on_sample_failed(self, text: str) -> None:
        self._sampling = False
        self.timer.stop()
        self.plot_box.setTitle(t("gpu.page.plot_failed", self.lang, error=text.splitlines()[0]))
        self.plot_box.setToolTip(self.plot_box.title())

    def cleanup(self) -> None:
        """Stop sampling and close NVML (the wizard calls this when it closes)."""
        if not self.built:
            return  # never shown: nothing runs, and closing should not build it
        self.timer.stop()
        if self.sampler is not None:
            self.sampler.close()
            self.sampler = None

    def retranslate(self) -> None:
        super().retranslate()
        self.rescan.setText(t("gpu.page.rescan", self.lang))
        self.driver_box.setTitle(t("gpu.page.driver_box", self.lang))
        self.findings_box.setTitle(t("gpu.page.findings_box", self.lang))
        # a group box title cannot wrap: a short title, the plots' full description as its tooltip
        self.plot_box.setTitle(t("gpu.page.plot_box.short", self.lang))
        self.plot_box.setToolTip(t("gpu.page.plot_box", self.lang))
        self.driver_form.retranslate()
        if self.plot is not None:
            self.plot.retranslate()
        self.fill()
        self.findings.retranslate()
