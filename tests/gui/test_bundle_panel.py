"""The Environment page's "Install from a bundle folder…", offscreen: a real bundle (a wheel and
its manifest) installed into a real venv on a worker thread; a tampered bundle refused on the row."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

pytest.importorskip("pytestqt")

from tests.gui.wizard_driver import open_wizard  # noqa: E402
from tests.integration.index_server import make_wheel  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.core.install.bundle import MANIFEST  # noqa: E402
from wizard.ui.pages.environment_page import register_install_pages  # noqa: E402


def _bundle(folder):
    folder.mkdir()
    w = make_wheel(folder, "gsw-bundled", "1.0")
    doc = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-bundled==1.0"],
           "files": [{"filename": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest(),
                      "size": w.stat().st_size}]}
    (folder / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    return w


@pytest.mark.gui
@pytest.mark.slow
def test_install_from_a_bundle_folder(qtbot, tmp_path):
    window = open_wizard(qtbot, RealHost(), lang="ko")
    page, _install = register_install_pages(window)
    if not page.built:
        page._build()
    row = page.bundle_row
    assert row.button.text() == "번들 폴더에서 설치…"
    wheel = _bundle(tmp_path / "USB 번들")
    venv = tmp_path / "새 환경"
    row.start(str(tmp_path / "USB 번들"), str(venv))
    assert not row.button.isEnabled()
    qtbot.waitUntil(lambda: not row.running, timeout=240_000)
    assert "네트워크 없이" in row.label.text(), row.label.text()
    assert window.model.session.target_python == row.env_python
    done = subprocess.run([row.env_python, "-c", "import gsw_bundled"], capture_output=True, timeout=60)
    assert done.returncode == 0

    data = bytearray(wheel.read_bytes())
    data[-10] ^= 0x01
    wheel.write_bytes(bytes(data))
    row.start(str(tmp_path / "USB 번들"), str(tmp_path / "never"))
    qtbot.waitUntil(lambda: not row.running, timeout=60_000)
    assert "거부됨" in row.label.text() and not (tmp_path / "never").exists()
    window.model.set_language("en")
    assert row.button.text() == "Install from a bundle folder…" and "Refused" in row.label.text()
