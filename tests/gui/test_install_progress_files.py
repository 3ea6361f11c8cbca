"""The Install page's file rows once a run is over: a file with bytes on disk is "kept for Resume",
a file the run never reached says "not started" -- nothing of it is kept (a real widget, offscreen)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.gui

from wizard.core.base.i18n import t  # noqa: E402
from wizard.core.install.download_progress import DownloadProgress, FileProgress  # noqa: E402
from wizard.ui.pages.environment.install_progress import InstallProgress  # noqa: E402

MB = 1024 * 1024


def _snapshot(files: list[FileProgress]) -> DownloadProgress:
    total = sum(f.size or 0 for f in files)
    done = sum(f.done for f in files)
    return DownloadProgress(files=files, total_bytes=total, done_bytes=done, fetched_bytes=done, cached_bytes=0,
                            speed_bps=0.0, eta_s=None, elapsed_s=3.0)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_stopped_run_says_not_started_for_files_it_never_reached(qtbot, lang):
    widget = InstallProgress(lambda: lang)
    qtbot.addWidget(widget)
    files = [FileProgress("torch-2.7.0-cp312-linux_x86_64.whl", 800 * MB, done=120 * MB, state="downloading"),
             FileProgress("numpy-2.2.0-cp312-linux_x86_64.whl", 16 * MB, done=0, state="waiting"),
             FileProgress("sympy-1.13.0-py3-none-any.whl", 6 * MB, done=0, state="cancelled"),
             FileProgress("filelock-3.16.0-py3-none-any.whl", MB, done=MB, state="done")]
    widget.show_files(_snapshot(files), over=True)
    state = {name: item.text(3) for name, (item, _bar) in widget.file_rows.items()}
    kept, not_started = t("install.page.file.cancelled", lang), t("install.page.file.not_started", lang)
    assert not_started != kept
    assert state["torch-2.7.0-cp312-linux_x86_64.whl"] == kept
    assert state["numpy-2.2.0-cp312-linux_x86_64.whl"] == not_started
    assert state["sympy-1.13.0-py3-none-any.whl"] == not_started
    assert state["filelock-3.16.0-py3-none-any.whl"] == t("install.page.file.done", lang)
    assert (not_started, kept) == (("시작 전", "멈춤 (이어받기용으로 보관)") if lang == "ko"
                                   else ("not started", "stopped (kept for Resume)"))


def test_while_the_run_goes_on_an_unreached_file_is_waiting(qtbot):
    widget = InstallProgress(lambda: "en")
    qtbot.addWidget(widget)
    widget.show_files(_snapshot([FileProgress("numpy-2.2.0-cp312-linux_x86_64.whl", 16 * MB)]), over=False)
    (item, _bar), = widget.file_rows.values()
    assert item.text(3) == t("install.page.file.waiting", "en")
