"""The VRAM page: "Measure my model…" (the real probe, off the GUI thread) and a PC without a GPU."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.core.base.i18n import t  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

MODEL = '''
import torch
from torch import nn


def make(batch):
    net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Flatten(),
                        nn.Linear(16 * 32 * 32, 10))
    return net, (torch.randn(batch, 3, 32, 32),)
'''


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_pc_without_a_gpu_is_said_plainly_and_the_t4_is_colabs(qtbot, lang):
    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    go_to(window, PageId.VRAM)
    page = window.vram_page
    assert page.gpu_combo.currentText() == t("vram.page.no_gpu_here", lang) and page.gpu() is None
    assert t("vram.page.colab_t4", lang, size="14.8 GiB") == page.gpu_combo.itemText(1)
    assert all(page.gpu_combo.itemText(i).startswith(t("vram.page.what_if", lang, name="", size="")[:4])
               for i in range(2, page.gpu_combo.count() - 1))
    head = t("vram.page.no_gpu_verdict", lang, total="", t4="").split("{")[0][:20]
    assert head in page.verdict.text()
    assert page.lessons_box.title() == t("vram.page.lessons_no_gpu", lang)
    verdicts = [page.table.item(r, 1).text() for r in range(page.table.rowCount())]
    on_cpu = t("vram.verdict.runs_on_cpu", lang, batch=0).split("0")[0]
    assert any(v.startswith(on_cpu) for v in verdicts)  # the small lessons judged for this CPU
    assert not any(v.startswith(t("vram.verdict.runs_here", lang, batch=0).split("0")[0]) for v in verdicts)


def test_a_what_if_card_is_named_so_and_batch_1_gets_no_smaller_batch_advice(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.VRAM)
    page = window.vram_page
    page.gpu_combo.setCurrentIndex(1)  # Colab's T4
    page.model_combo.setCurrentIndex(page.model_combo.findData("llama-2-7b"))
    page.precision_combo.setCurrentIndex(page.precision_combo.findData("fp32"))
    assert page.batch_spin.value() == 1 and page.last_estimate.fits is False
    text = page.verdict.text()
    assert "What if" in text and "smaller batch" not in text and "even at batch 1" in text
    assert page.lessons_box.title() == t("vram.page.lessons_what_if", "en")
    assert not any("this GPU" in page.table.item(r, 1).text() for r in range(page.table.rowCount()))
    page.batch_spin.setValue(4)
    assert "smaller batch" in page.verdict.text()


def test_bad_spec_and_no_python_are_one_line_each(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.VRAM)
    page = window.vram_page
    page.spec_edit.setText("mobilenet")
    page.start_measure()
    assert "mobilenet" in page.measure_status.text() and page.probe is None
    page.spec_edit.setText("torchvision:mobilenet_v3_large")
    page.picker.combo.clear()
    page.start_measure()
    assert page.measure_status.text() == t("vram.page.measure.no_python", "en") and page.probe is None


def test_measure_my_model_runs_the_probe_and_fills_the_bar(qtbot, torch_python, tmp_path):
    model = tmp_path / "내 모델.py"
    model.write_text(MODEL, encoding="utf-8")
    window = open_wizard(qtbot, scenarios.linux_host())
    window.model.session.target_python = str(torch_python)
    go_to(window, PageId.VRAM)
    page = window.vram_page
    assert page.picker.path() == str(torch_python)
    page.mode_combo.setCurrentIndex(page.mode_combo.findData("train"))
    page.precision_combo.setCurrentIndex(page.precision_combo.findData("fp32"))
    page.batch_spin.setValue(8)
    page.spec_edit.setText(f"{model}:make")
    page.start_measure()
    assert page.probe.running and not page.measure_button.isEnabled()  # the window stays live meanwhile
    with qtbot.waitSignal(page.probe.finished, timeout=300_000):
        pass
    m = page.measurement
    assert m is not None and m.measured, page.measure_status.text()
    assert page.model_combo.currentText() == f"Measured: {model}:make"
    assert page.bar.bars["activations"][1] > 0 and "Measured from the model itself" in page.measure_status.text()
    session = window.model.session
    assert session.vram is page.last_estimate and session.vram_chosen and session.vram.activation_basis == "meta"
    acts = page.last_estimate.items["activations"]
    page.batch_spin.setValue(16)  # another batch: the same measurement, no new run
    assert page.last_estimate.items["activations"] > 1.9 * acts and not page.probe.running
    page.gpu_combo.setCurrentIndex(1)  # Colab's T4
    assert page.last_estimate.fits is True and "What if" in page.verdict.text()
