"""The Environment and Install pages, driven end to end against a real index on 127.0.0.1.

Everything below is real: tiny wheels named like the recommended build (torch, torchvision and
a dependency) are built here and served by tests/integration/index_server.py; the page's mirror
setting points the recommended build at it; the pages plan with pip's dry run, the Install page
creates a venv under a path with Hangul and a space (QProcess), downloads with the engine's
downloader (a worker thread), installs offline from the cache and imports the package in the
new environment. The network misbehaves on purpose: a slow file to cancel against, a corrupted
one. The event loop is watched with a heartbeat timer the whole time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # real venvs, pip and downloads from a loopback index

from PySide6.QtWidgets import QWizard  # noqa: E402

from tests.gui import install_driver  # noqa: E402
from tests.gui.install_driver import (  # noqa: E402
    Heartbeat,
    choose_new_venv,
    commit,
    env_python,
    make_session,
    open_pages,
    wait_end,
    wait_plan,
)
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.core.install.environments import CREATOR_UV, KIND_EXISTING_VENV, KIND_NEW_CONDA, find_uv, is_incomplete  # noqa: E402
from wizard.core.install.preflight import CHECK_CONDA_BASE, CHECK_OWN_RUNTIME  # noqa: E402
from wizard.core.install.recovery import STATUS_CANCELLED, STATUS_COMPLETE, STATUS_FAILED, StateStore  # noqa: E402
from wizard.core.machine.models import CondaEnv, CondaInstall  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment import common as env_common  # noqa: E402
from wizard.ui.pages.environment.common import (
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
)
from wizard.ui.pages.install_page import STATE_CANCELLED, STATE_DONE, STATE_FAILED, STATE_REMOVED  # noqa: E402

TORCH_PAYLOAD, WAIT_MS = install_driver.TORCH_PAYLOAD, install_driver.WAIT_MS  # benchmarks/gui_bench.py reads the first


# --------------------------------------------------------------------------------------------
# The Environment page
# --------------------------------------------------------------------------------------------
def test_environment_page_shows_the_plan_sizes_space_and_checks(qtbot, build, index, wheels, root):
    window, page, _install = open_pages(qtbot, make_session(build), root, index)
    assert page.mode() == MODE_NEW_VENV
    default = page.venv_path.text()
    assert default == str(root / "GPU-Setup-Wizard" / "envs" / "torch-cpu")
    assert page.python_combo.currentData()[1] == sys.executable  # the recommendation's interpreter
    choose_new_venv(qtbot, page, root / "envs" / "가상 환경")
    assert page.plan is not None and page.plan_error is None
    assert page.plan.index_url == index.base + "/whl/cpu"  # the mirror replaced download.pytorch.org
    shown = {page.plan_tree.topLevelItem(i).text(0): page.plan_tree.topLevelItem(i).text(2)
             for i in range(page.plan_tree.topLevelItemCount())}
    assert set(shown) == {"torch", "torchvision", "typing-extensions"}
    assert shown["torch"] == "3.0 MB"  # the size the server gave for the served wheel
    total = sum(f.size for f in index.files.values())
    assert "3 files to download" in page.plan_total.text()
    assert page.plan.total_bytes == total
    assert "free of" in page.space_form._rows["environment.space.env"][1].text()
    assert "Ready to install." in page.checks_label.text()
    assert page.isComplete()
    assert index.total_file_bytes_served() == 0  # planning downloaded nothing
    # typing a path does not resolve again (the plan depends on the interpreter, not the folder)
    served = len(index.log)
    page.venv_path.setText(str(root / "envs" / "another one"))
    wait_plan(qtbot, page)
    assert len(index.log) == served and page.isComplete()
    # a folder of other files is refused plainly
    docs = root / "documents"
    docs.mkdir()
    (docs / "thesis.hwp").write_text("x", encoding="utf-8")
    page.venv_path.setText(str(docs))
    wait_plan(qtbot, page)
    assert not page.isComplete() and "not empty" in page.checks_label.text()
    # Browse… onto that folder puts the environment inside it
    page.set_new_venv_folder(str(docs))
    assert page.venv_path.text() == str(docs / "torch-cpu")


def test_refused_targets_need_an_explicit_confirmation(qtbot, build, index, root, monkeypatch):
    conda = CondaInstall(exe=str(root / "miniconda3" / "bin" / "conda"), version="24.5.0",
                         base_prefix=str(root / "miniconda3"),
                         envs=[CondaEnv("base", str(root / "miniconda3"), True),
                               CondaEnv("dl", str(root / "miniconda3" / "envs" / "dl"))])
    # (an index that answers: a plan that cannot run would keep Install disabled by itself)
    window, page, _install = open_pages(qtbot, make_session(build, [conda]), root, index)
    # the wizard's own runtime, as an existing environment
    page.set_mode(MODE_EXISTING)
    own = next(i for i in range(page.existing_combo.count())
               if os.path.samefile(page.existing_combo.itemData(i).path, sys.prefix)
               or page.existing_combo.itemData(i).python_exe == sys.executable)
    page.existing_combo.setCurrentIndex(own)
    wait_plan(qtbot, page)
    ids = {c.id for c in page.checks.preflight.needs_confirmation}
    assert CHECK_OWN_RUNTIME in ids
    assert not page.isComplete() and page.confirm_button.isVisible()
    assert not window.button(QWizard.WizardButton.CommitButton).isEnabled()
    asked = []
    monkeypatch.setattr(env_common, "ask_yes_no", lambda *a: asked.append(a) or False)
    page.confirm_button.click()  # "No": nothing changes
    assert asked and "runs from" in asked[0][2] and not page.confirmed
    monkeypatch.setattr(env_common, "ask_yes_no", lambda *a: True)
    page.confirm_button.click()
    qtbot.waitUntil(lambda: page.checks is not None and not page.checks_running, timeout=WAIT_MS)
    assert CHECK_OWN_RUNTIME in page.confirmed
    if page.checks.preflight.ok:  # (a read-only test environment would fail on writability instead)
        assert page.isComplete()
        assert page.validatePage()
        assert CHECK_OWN_RUNTIME in window.model.session.install_request.options.confirmed
    # conda: names are checked as conda checks them; base needs confirming
    page.set_mode(MODE_NEW_CONDA)
    page.conda_name.setText("my env")
    wait_plan(qtbot, page)
    assert "contains space" in page.conda_note.text() and not page.isComplete()
    page.conda_name.setText("dl")
    wait_plan(qtbot, page)
    assert "already exists" in page.conda_note.text()
    assert page.target.kind == KIND_NEW_CONDA and page.plan is None
    assert "once the environment exists" in page.plan_status.text()
    page.set_mode(MODE_EXISTING_CONDA)
    page.conda_env_combo.setCurrentIndex(0)  # base
    wait_plan(qtbot, page)
    assert CHECK_CONDA_BASE in {c.id for c in page.checks.preflight.checks}
    assert not page.isComplete()


# --------------------------------------------------------------------------------------------
# The Install page
# --------------------------------------------------------------------------------------------
def test_full_install_into_a_hangul_path_with_a_responsive_window(qtbot, build, index, wheels, root):
    index.throttle(wheels["torch"].name, 3_000_000)  # about a second of download to watch
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_dir = root / "envs" / "가상 환경"
    choose_new_venv(qtbot, env_page, env_dir)
    beat = Heartbeat(page)
    try:
        commit(window)
        assert not window.button(QWizard.WizardButton.BackButton).isEnabled()  # no Back into a running install
        qtbot.waitUntil(lambda: page.runner is not None and page.runner.current is not None
                        and page.runner.current.id == "download", timeout=WAIT_MS)
        qtbot.waitUntil(lambda: page.last_download is not None and page.last_download.done_bytes > 0, timeout=WAIT_MS)
        assert page.files.isVisible() and page.files.topLevelItemCount() == 3
        wait_end(qtbot, page)
    finally:
        beat.stop()
    assert page.state == STATE_DONE, page.message + "\n" + "\n".join(page.job.log_lines)
    assert page.overall_bar.value() == page.overall_bar.maximum()
    assert all(bar.value() == bar.maximum() for _item, bar in page.file_rows.values())
    lines = page.log.lines()
    assert any(line.startswith("$ ") and "venv" in line for line in lines) and len(lines) > 20
    installed_line = re.compile(r"Successfully installed|Installed \d+ packages")  # pip's words, or uv's (the default)
    assert installed_line.search("\n".join(lines))
    result = window.model.session.install
    assert Path(result.env_python) == env_python(env_dir)
    assert {i.name: i.version for i in result.installed} == {
        "torch": f"{build.best.torch}+cpu", "torchvision": f"{build.best.torchvision}+cpu",
        "typing-extensions": "4.12.2"}
    assert result.downloaded_bytes == sum(f.size for f in index.files.values())
    out = subprocess.run([str(env_python(env_dir)), "-c", "import torch, sys; print(torch.__file__)"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and root.name in out.stdout, out.stderr
    assert not is_incomplete(str(env_dir))
    saved = root / "설치 로그.log"
    page.save_log(saved)
    assert installed_line.search(saved.read_text(encoding="utf-8"))
    # Next goes to Verify; the commit button says Next here
    button = window.button(QWizard.WizardButton.CommitButton)
    assert button.isEnabled() and button.text() == "Next >"
    button.click()
    assert window.currentId() == PageId.VERIFY
    assert window.model.session.target_python == result.env_python
    # the heartbeat kept running through the download (a worker thread) and the install (QProcess)
    for step in ("download", "install"):
        assert beat.ticks.get(step, 0) >= 3, beat.ticks
    # the same build again into that environment: "already installed", said plainly
    again, env_page2, _ = open_pages(qtbot, make_session(build), root, index)
    assert env_page2.add_existing_folder(str(env_dir))
    wait_plan(qtbot, env_page2)
    assert env_page2.plan.already_satisfied
    assert "Everything is already installed" in env_page2.plan_total.text()
    assert {env_page2.plan_tree.topLevelItem(i).text(2) for i in range(3)} == {"already installed"}
    print("\nevent-loop heartbeat (10 ms timer), worst gap per step: "
          + ", ".join(f"{k} {v * 1000:.1f} ms ({beat.ticks[k]} ticks)" for k, v in sorted(beat.gaps.items())))


def test_cancel_during_download_then_resume_completes(qtbot, build, index, wheels, root, monkeypatch):
    asked = []
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", lambda *a: asked.append(a) or True)
    name = wheels["torch"].name
    index.throttle(name, 600_000)  # 3 MB at 0.6 MB/s: time to cancel in the middle
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_dir = root / "envs" / "취소 후 이어받기"
    choose_new_venv(qtbot, env_page, env_dir)
    commit(window)
    qtbot.waitUntil(lambda: page.last_download is not None and page.last_download.fetched_bytes > 400_000,
                    timeout=WAIT_MS)
    pressed = time.monotonic()
    page.cancel_button.click()
    assert len(asked) == 1  # the page's Cancel asks first
    wait_end(qtbot, page)
    stopped_in = time.monotonic() - pressed
    assert page.state == STATE_CANCELLED, page.message
    assert "Cancelled" in page.message and stopped_in < 10, stopped_in
    assert page.resume_button.isVisible() and page.remove_button.isVisible()
    assert not page.restore_button.isVisible() and not page.isComplete()
    state = StateStore(root / "state").load(str(env_dir))
    assert state.status == STATUS_CANCELLED and state.failed_step == "download"
    # the Environment page lists it as unfinished
    env_page._fill_unfinished()
    assert env_page.mode_buttons[MODE_RESUME].isVisibleTo(env_page)
    assert env_page.resume_combo.currentData().env_path == str(env_dir)
    partial = sum(p.stat().st_size for p in (root / "cache" / "partial").glob("*.part"))
    assert 400_000 <= partial < index.files[name].size
    index.throttle(name, None)
    index.reset_counters()
    page.resume_button.click()
    wait_end(qtbot, page)
    assert page.state == STATE_DONE, page.message
    gets = index.sent_per_get(name)
    assert gets and gets[0][0] == f"bytes={partial}-"  # only the rest was fetched
    assert page.job.summary()["resumed_bytes"] == partial
    assert StateStore(root / "state").load(str(env_dir)).status == STATUS_COMPLETE
    out = subprocess.run([str(env_python(env_dir)), "-c", "import torch"], capture_output=True, timeout=60)
    assert out.returncode == 0


def test_a_corrupted_file_fails_clearly_and_remove_cleans_up(qtbot, build, index, wheels, root, monkeypatch):
    name = wheels["torch"].name
    index.corrupt(name, times=2)
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_dir = root / "envs" / "깨진 파일"
    choose_new_venv(qtbot, env_page, env_dir)
    commit(window)
    wait_end(qtbot, page)
    assert page.state == STATE_FAILED
    assert page.job.failure.kind == "hash"
    assert "Stopped at: Download" in page.step_label.text()
    assert name in page.message and "checksum" in page.message and "127.0.0.1" in page.message
    assert page.resume_button.isVisible() and page.resume_button.text() == "Resume"
    assert page.remove_button.isVisible() and not page.isComplete()
    assert StateStore(root / "state").load(str(env_dir)).status == STATUS_FAILED
    monkeypatch.setattr(env_common, "ask_yes_no", lambda *a: False)
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", lambda *a: True)
    page.remove_button.click()
    qtbot.waitUntil(lambda: page.state == STATE_REMOVED, timeout=WAIT_MS)
    assert not env_dir.exists() and StateStore(root / "state").load(str(env_dir)) is None
    assert "Removed" in page.message and page.change_button.isVisible()
    page.change_button.click()  # back to choose another environment
    assert window.currentId() == PageId.ENVIRONMENT


def test_network_failure_names_the_host_then_a_mirror_and_install_again(qtbot, build, index, wheels, root):
    from tests.integration.index_server import free_port

    dead = f"http://127.0.0.1:{free_port()}/whl"
    window, env_page, page = open_pages(qtbot, make_session(build), root, None)
    assert not env_page.advanced.isVisibleTo(env_page)
    env_page.mirror_edit.setText(dead)  # a mirror that does not answer
    env_page.mirror_edit.editingFinished.emit()
    env_dir = root / "envs" / "느린 네트워크"
    choose_new_venv(qtbot, env_page, env_dir)
    assert env_page.plan_error is not None and env_page.plan_error.kind == "network"
    assert "127.0.0.1" in env_page.plan_status.text() and "mirror" in env_page.plan_status.text()
    assert env_page.advanced.isVisibleTo(env_page)  # the settings open by themselves
    # a plan that cannot run: no Install, and no "ready" under the red line (pip's raw line only in Details)
    assert not env_page.isComplete()
    assert not window.button(QWizard.WizardButton.CommitButton).isEnabled()
    assert "Ready to install" not in env_page.checks_label.text() and "Not ready" in env_page.checks_label.text()
    assert "--index-url" not in env_page.plan_status.text() and "ERROR:" not in env_page.plan_status.text()
    # the student sets a working mirror and installs
    env_page.mirror_edit.setText(index.base + "/whl")
    env_page.mirror_edit.editingFinished.emit()
    wait_plan(qtbot, env_page)
    assert env_page.plan_error is None and env_page.isComplete()
    commit(window)
    wait_end(qtbot, page)
    assert page.state == STATE_DONE, page.message


def test_a_failed_install_into_an_existing_environment_is_restored(qtbot, build, wheels, root, tmp_path_factory,
                                                                     monkeypatch):
    """An existing venv: its package list is saved first; a torch that does not import fails the
    check at the end, and Restore puts the environment back as it was (the replaced package
    comes back from the student's own index: here the loopback one, set as PIP_INDEX_URL)."""
    import venv

    best = build.best
    d = tmp_path_factory.mktemp("broken wheels")
    broken = [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                         files={"torch/__init__.py": "raise ImportError('this build is broken')\n"}),
              wheels["torchvision"], wheels["typing"]]
    old_typing = make_wheel(d, "typing-extensions", "4.0.0", files={"typing_extensions.py": "X = 0\n"})
    env_dir = root / "기존 환경"
    venv.create(env_dir, with_pip=False)
    py = env_python(env_dir)
    with LoopbackIndex() as idx:
        idx.add_wheels([*broken, old_typing])
        monkeypatch.setenv("PIP_INDEX_URL", idx.simple_url)
        pre = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                              "typing-extensions==4.0.0"], capture_output=True, text=True, timeout=300)
        assert pre.returncode == 0, pre.stderr
        window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
        assert env_page.add_existing_folder(str(env_dir))
        wait_plan(qtbot, env_page)
        assert env_page.target.kind == KIND_EXISTING_VENV and env_page.isComplete()
        replaced = [f for f in env_page.plan.files if f.name == "typing-extensions"][0]
        assert replaced.installed_version == "4.0.0" and not replaced.satisfied
        commit(window)
        wait_end(qtbot, page)
        assert page.state == STATE_FAILED and page.job.failure.step_id == "verify", page.message
        assert "this build is broken" in page.message
        assert page.restore_button.isVisible() and not page.remove_button.isVisible()  # never Remove: not ours
        page.restore_button.click()
        qtbot.waitUntil(lambda: page.state in ("restored", STATE_FAILED), timeout=WAIT_MS)
    assert page.state == "restored", page.message + "\n".join(list(page.job.log_lines)[-20:])
    assert "previous packages are back" in page.message
    out = subprocess.run([str(py), "-c", "import importlib.util as u, typing_extensions as t; "
                                         "print(t.X, u.find_spec('torch') is None)"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["0", "True"], out.stderr + "\n".join(page.job.log_lines)


def test_closing_the_window_during_a_download_stops_it_and_keeps_it_resumable(qtbot, build, index, wheels, root,
                                                                              monkeypatch):
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", lambda *a: True)  # "stop and close"
    index.throttle(wheels["torch"].name, 500_000)
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_dir = root / "envs" / "창 닫기"
    choose_new_venv(qtbot, env_page, env_dir)
    commit(window)
    qtbot.waitUntil(lambda: page.last_download is not None and page.last_download.fetched_bytes > 200_000,
                    timeout=WAIT_MS)
    window.reject()  # the window's own Cancel / close
    qtbot.waitUntil(lambda: not page.runner.running, timeout=WAIT_MS)
    state = StateStore(root / "state").load(str(env_dir))
    assert state.status == STATUS_CANCELLED and is_incomplete(str(env_dir))
    assert any(p.stat().st_size > 200_000 for p in (root / "cache" / "partial").glob("*.part"))


def test_a_python_from_uv_says_what_it_downloads_and_from_where(qtbot, build, root, monkeypatch):
    uv = find_uv()
    if not uv:
        pytest.skip("uv is not installed (pip install uv)")
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(root / "uv pythons"))  # uv has no Python of its own here
    session = make_session(build)
    window, page, _install = open_pages(qtbot, session, root, None)
    page.more_button.click()
    page.python_mirror_edit.setText("https://mirror.example.org/pbs")
    page.python_mirror_edit.editingFinished.emit()
    combo = page.python_combo
    uv_item = next(i for i in range(combo.count()) if combo.itemData(i)[0] == "uv")
    assert combo.itemData(uv_item)[1] == session.recommendation.version
    assert "with uv" in combo.itemText(uv_item)
    page.python_combo.setCurrentIndex(uv_item)
    wait_plan(qtbot, page)
    qtbot.waitUntil(lambda: "Asking uv" not in page.venv_note.text(), timeout=WAIT_MS)
    note = page.venv_note.text()
    assert "uv will download Python" in note and "mirror.example.org" in note, note
    assert page.target.creator == CREATOR_UV and page.target.python_version
    assert page.plan is None and "once the environment exists" in page.plan_status.text()
    assert page.isComplete()
    assert page.validatePage()
    options = session.install_request.options
    assert options.uv_python_mirror == "https://mirror.example.org/pbs"


# --------------------------------------------------------------------------------------------
# The QProcess runner on its own
# --------------------------------------------------------------------------------------------
def _run_spec(qtbot, spec, cancel_after_first_line: bool = False):
    from wizard.ui.process_runner import ProcessRunner

    runner = ProcessRunner()
    lines, ended = [], []
    runner.line.connect(lines.append)
    runner.ended.connect(ended.append)

    def on_line(_text: str) -> None:
        if cancel_after_first_line and len(lines) == 1:
            runner.cancel()

    runner.line.connect(on_line)
    runner.start(spec)
    qtbot.waitUntil(lambda: bool(ended), timeout=WAIT_MS)
    return lines, ended[0]


def test_process_runner_decodes_split_hangul_and_cp949(qtbot):
    from wizard.core.base.host import child_env
    from wizard.core.base.process import ProcessSpec

    code = ("import sys, time\n"
            "data = '설치 완료: 가상 환경\\n'.encode('utf-8')\n"
            "for i in range(len(data)):\n"
            "    sys.stdout.buffer.write(data[i:i + 1]); sys.stdout.buffer.flush(); time.sleep(0.002)\n"
            "sys.stdout.buffer.write('윈도우 메시지\\r\\n'.encode('cp949'))\n"
            "sys.stderr.write('stderr 줄\\n'); sys.stderr.flush()\n"
            "sys.stdout.buffer.write('끝'.encode('utf-8'))\n")
    lines, result = _run_spec(qtbot, ProcessSpec([sys.executable, "-c", code], child_env(), None, 60))
    assert result.ok and result.returncode == 0
    assert lines[:2] == ["설치 완료: 가상 환경", "윈도우 메시지"]
    assert "stderr 줄" in lines and lines[-1] == "끝"  # merged channels; the last line without a newline


def test_process_runner_cancel_stops_the_whole_tree_and_reports_it(qtbot):
    import psutil

    from wizard.core.base.host import child_env
    from wizard.core.base.process import ProcessSpec

    code = ("import subprocess, sys, time; "
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            "print(c.pid, flush=True); time.sleep(60)")
    start = time.monotonic()
    lines, result = _run_spec(qtbot, ProcessSpec([sys.executable, "-c", code], child_env(), None, 60),
                              cancel_after_first_line=True)
    assert result.cancelled and result.returncode is None and not result.ok
    assert time.monotonic() - start < 10
    grandchild = int(lines[0])
    qtbot.waitUntil(lambda: not psutil.pid_exists(grandchild)
                    or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE, timeout=10_000)


def test_process_runner_timeout_exit_code_and_missing_program(qtbot):
    from wizard.core.base.host import child_env
    from wizard.core.base.process import ProcessSpec

    _lines, slow = _run_spec(qtbot, ProcessSpec([sys.executable, "-c", "import time; time.sleep(30)"],
                                                child_env(), None, 0.5))
    assert slow.timed_out and slow.returncode is None
    _lines, failing = _run_spec(qtbot, ProcessSpec([sys.executable, "-c", "raise SystemExit(3)"], child_env()))
    assert failing.returncode == 3 and not failing.ok
    _lines, missing = _run_spec(qtbot, ProcessSpec(["/no/such/program-gsw"], child_env()))
    assert missing.error == "not found" and missing.returncode is None


def test_skipping_the_install_goes_to_verify_and_back(qtbot, build, root):
    window, page, _install = open_pages(qtbot, make_session(build), root, None)
    page.skip_install()
    assert page.mode() == MODE_SKIP and page.isComplete() and not page.isCommitPage()
    next_button = window.button(QWizard.WizardButton.NextButton)
    assert next_button.isVisible() and next_button.isEnabled()
    assert not window.button(QWizard.WizardButton.CommitButton).isVisible()
    next_button.click()
    assert window.currentId() == PageId.VERIFY
    assert window.model.session.install_request is None
    window.back()  # nothing was committed
    assert window.currentId() == PageId.ENVIRONMENT
    page.set_mode(MODE_NEW_VENV)
    assert page.isCommitPage() and page.nextId() == PageId.INSTALL
