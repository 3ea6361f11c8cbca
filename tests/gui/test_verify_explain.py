"""The Verify page's "Explain an error" box and its "Good to know" box, offscreen.

The pasted text is explained with the same context as ``doctor --explain --python ENV``: the
environment chosen on the page, asked by a real subprocess (a real venv whose site-packages holds
torch 2.2.2 and NumPy 2.1.0 as distribution metadata, as in tests/unit/test_explain_context.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # makes a venv

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard, show_recorded_verify  # noqa: E402
from wizard.app.explain import findings_json  # noqa: E402
from wizard.cli.doctor import cmd_explain  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

ERRORS = Path(__file__).resolve().parents[1] / "data" / "errors"
NUMPY_TEXT = ERRORS / "b4-numpy-ompl-array-api.txt"


def _venv(where: Path, packages: dict[str, str]) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    purelib = sysconfig.get_path("purelib", vars={"base": str(where), "platbase": str(where)})
    for name, version in packages.items():
        info = Path(purelib) / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    return where / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _verify_page(qtbot, python: str | None = None):
    window = open_wizard(qtbot, scenarios.linux_host())
    window.resize(1024, 700)
    if python:
        window.model.session.target_python = python
    go_to(window, PageId.VERIFY)
    return window, window.verify_page


def _explain(qtbot, page, text: str):
    page.explain_toggle.setChecked(True)
    assert page.explain_box.isVisible()
    page.paste.setPlainText(text)
    page.explanation = None
    page.explain_button.click()
    qtbot.waitUntil(lambda: page.explanation is not None, timeout=60000)
    return page.explanation


def test_the_pasted_error_uses_the_same_context_as_doctor_explain_python(qtbot, tmp_path, capsys):
    python = str(_venv(tmp_path / "env torch22", {"torch": "2.2.2", "numpy": "2.1.0"}))
    window, page = _verify_page(qtbot, python)
    assert page.picker.path() == python
    explanation = _explain(qtbot, page, NUMPY_TEXT.read_text(encoding="utf-8"))
    assert explanation.env_path == python and not explanation.env_unusable
    (numpy,) = [f for f in explanation.findings if f.id == "numpy-abi-mismatch"]
    assert numpy.variant == "ctx-numpy2-old-torch" and "numpy 2.1.0, torch 2.2.2" in numpy.evidence
    # exactly what the command gives for the same text and environment
    capsys.readouterr()
    cmd_explain(str(NUMPY_TEXT), "en", as_json=True, python=python)
    assert findings_json(explanation.findings, "en") == json.loads(capsys.readouterr().out)
    # shown as cards, with the line that says which environment was asked
    assert page.explained_scroll.isVisible() and page.explained.cards
    assert "numpy<2" in page.explained.cards[0].fix.text()
    assert python in page.explain_status.text()


def test_without_an_environment_or_one_that_cannot_be_asked_the_text_is_still_explained(qtbot, tmp_path):
    from wizard.app.explain import explain

    text = NUMPY_TEXT.read_text(encoding="utf-8")
    gone = explain(text, str(tmp_path / "gone" / "bin" / "python"))  # what the page gets for it
    assert gone.env_unusable and [f.id for f in gone.findings][:1] == ["numpy-abi-mismatch"]
    window, page = _verify_page(qtbot)
    if page.picker.path():  # this machine's own Pythons are offered: choose none
        page.picker.combo.setCurrentIndex(-1)
    explanation = _explain(qtbot, page, text)
    assert explanation.env_path is None and [f.id for f in explanation.findings][:1] == ["numpy-abi-mismatch"]
    assert "text alone" in page.explain_status.text()
    page._show_explanation(gone)
    assert "could not be asked" in page.explain_status.text()
    explanation = _explain(qtbot, page, "hello, nothing went wrong here")
    assert explanation.findings == [] and not page.explained_scroll.isVisible()
    assert "does not recognise" in page.explain_status.text()


def test_good_to_know_has_no_gaps_and_leaves_the_room_to_the_checklist(qtbot):
    window, page = _verify_page(qtbot)
    show_recorded_verify(window)
    from wizard.app import verify as app_verify

    found = app_verify.diagnose(window.model.session, page.report)
    assert found and all(f.severity == "info" for f in found)
    page._show_diagnosis(found)
    qtbot.waitUntil(lambda: page.diagnosis_box.isVisible())
    qtbot.wait(50)
    card = page.diagnosis.cards[0]
    # the card is as tall as its lines (before: stretched over half the page, its lines far apart)
    assert card.height() <= card.sizeHint().height() + 8, (card.height(), card.sizeHint().height())
    assert page.diagnosis_scroll.height() <= max(page.height() // 3, 160)
    assert page.tree.height() > page.diagnosis_box.height()
