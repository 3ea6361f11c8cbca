"""Issue 27.12: the Jupyter dialog's kernel list said "✔ 정상" for a kernel whose verification
inside had just failed, and the ipykernel question's button was the question again ("ipykernel을
설치할까요?") beside "취소". Now the list's status comes from the run inside the kernel when there
is one (✖ and the failed checks under it), ✔ only when it passed; the button says what it does.

A real dialog on a real (empty) Jupyter data folder; the kernel's in-kernel runs are recorded
probe outputs (a driver too old for the build; a CPU build on a PC without a GPU)."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pytestqt")

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import open_wizard  # noqa: E402
from tests.report_sessions import probe_events  # noqa: E402
from wizard.core.verify.checklist import VerifyReport  # noqa: E402
from wizard.core.verify.kernel_specs import KernelInfo  # noqa: E402
from wizard.ui.pages.kernel_panel import KernelDialog, consent_box  # noqa: E402


@pytest.mark.parametrize(("lang", "install"), [("ko", "ipykernel 설치"), ("en", "Install ipykernel")])
def test_the_ipykernel_button_is_an_action_not_the_question(qtbot, lang, install):
    box, yes = consent_box(None, "ipykernel?", "ipykernel is not installed.", lang)
    qtbot.addWidget(box)
    assert yes.text() == install and not yes.text().endswith("?")
    assert box.defaultButton() is not yes and box.escapeButton() is not yes  # Cancel stays the safe answer


def _row(dialog, name):
    return next(dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())
                if dialog.tree.topLevelItem(i).text(1).endswith(name))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_list_says_what_verifying_inside_the_kernel_found(qtbot, kernel_data_dir, lang):
    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    dialog = KernelDialog(window.model, lambda: None, window)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    dialog.kernels = [KernelInfo(name="dl-course", display_name="DL course", resource_dir=str(kernel_data_dir),
                                 argv=[sys.executable], interpreter=sys.executable)]
    dialog._fill()
    assert _row(dialog, "dl-course").text(0).startswith("✔")  # nothing wrong with the spec itself

    failed = VerifyReport.from_events(probe_events("verify_driver_too_old_linux.jsonl"))
    dialog._verified("dl-course", failed)
    row = _row(dialog, "dl-course")
    assert row.text(0).startswith("✖"), row.text(0)
    reasons = [row.child(i).text(0) for i in range(row.childCount())]
    assert any("12.4" in text for text in reasons), reasons  # the driver's CUDA, from the failed check
    assert all(text.startswith(("✖", "⚠")) for text in reasons), reasons
    assert dialog.details.isVisibleTo(dialog) and "12.4" in dialog.details.text()

    passed = VerifyReport.from_events(probe_events("verify_cpu_only_no_gpu_linux.jsonl"))
    dialog._verified("dl-course", passed)
    row = _row(dialog, "dl-course")
    assert row.text(0).startswith("✔") and row.childCount() == 0, row.text(0)
