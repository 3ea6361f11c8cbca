"""Privacy by default: the user name, home folder, host name, GPU UUIDs and serials never reach an
export unless the student asks; a home folder with a Hangul user name is the normal case."""

from __future__ import annotations

import pytest

from tests import report_sessions as rs
from tests.recorded_host import RecordedHost
from wizard.app.report import build as build_report
from wizard.core.install.summary import InstallSummary
from wizard.core.report.as_json import dumps
from wizard.core.report.render import render_html, render_markdown

SECRETS = (rs.USER, rs.HOME, rs.HOST, rs.GPU_UUID, rs.GPU_UUID.split("-", 1)[1], "1320521012345")


def exports(report) -> dict[str, str]:
    return {"md": render_markdown(report), "html": render_html(report), "json": dumps(report)}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_hangul_home_user_and_host_are_hidden_by_default(lang):
    session = rs.full_session(lang)
    # the identifying strings are really in what the session holds...
    raw = build_report(session, lang=lang, include_private=True, now=rs.NOW)
    raw_text = "\n".join(exports(raw).values())
    for secret in (rs.USER, rs.HOME):
        assert secret in raw_text, f"the test session lost {secret!r}: nothing would be checked"
    # ...and none of them in a default export
    for fmt, text in exports(build_report(session, lang=lang, now=rs.NOW)).items():
        for secret in SECRETS:
            assert secret not in text, (fmt, secret)
        assert "~/envs/dl" in text


def test_asking_for_private_data_keeps_it():
    report = build_report(rs.full_session("en"), lang="en", include_private=True, now=rs.NOW)
    md = render_markdown(report)
    assert f"{rs.HOME}/envs/dl (new venv)" in md
    assert "Includes the user name" in md
    assert report.private_included


def test_windows_hangul_profile_with_a_space():
    """C:\\Users\\김 철수 (a space in the name) in paths written both ways."""
    home = "C:\\Users\\김 철수"
    session = rs.full_session("ko")
    session.host = RecordedHost(os_name="windows", env={"USERNAME": "김 철수", "USERPROFILE": home},
                                platform={"node": "DESKTOP-7Q2K9LM"}, home_dir=home)
    session.detection.system.hostname = "DESKTOP-7Q2K9LM"
    doc = rs.install_summary(home + "\\envs\\dl", "2.8.0+cu128", "0.23.0+cu128",
                             "https://download.pytorch.org/whl/cu128")
    doc["env_python"] = home.replace("\\", "/") + "/envs/dl/Scripts/python.exe"
    session.install = InstallSummary.from_json(doc)
    texts = exports(build_report(session, lang="ko", now=rs.NOW))
    for fmt, text in texts.items():
        for secret in ("김 철수", "DESKTOP-7Q2K9LM", "C:\\Users", "C:\\\\Users", "C:/Users"):
            assert secret not in text, (fmt, secret)
    assert "~\\envs\\dl (새 venv)" in texts["md"]
    assert "~/envs/dl/Scripts/python.exe" in texts["md"]


def test_remote_machines_pass_through_the_same_redaction():
    from wizard.core.report.remote import machine_from_text

    session = rs.full_session("en")
    pasted = rs.colab_smi_text() + f"\nGPU 0: Tesla T4 (UUID: {rs.GPU_UUID})\n"
    session.remotes = [machine_from_text(pasted, label="colab.txt")]
    text = dumps(build_report(session, lang="en", now=rs.NOW))
    assert rs.GPU_UUID.split("-", 1)[1] not in text and "GPU-<hidden>" in text
