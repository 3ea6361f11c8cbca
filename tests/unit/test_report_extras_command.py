"""The report's copyable pip command for a course install whose extras came from their own source
(PyPI, or a PyPI mirror): it names that source too, so the command installs what the wizard did;
only an https or loopback address goes into it."""

from __future__ import annotations

import pytest

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.core.install.summary import InstallSummary

MIRROR = "https://mirror.example.edu/pytorch/whl/cu128"


def _session(extras_index: str | None):
    s = rs.full_session("en")
    doc = rs.install_summary("/envs/dl", "2.8.0+cu128", "0.23.0+cu128", MIRROR)
    doc["requirements"] = [*doc["requirements"], "transformers>=4.40"]
    doc["extras_index"] = extras_index
    s.install = InstallSummary.from_json(doc)
    return s


def _command_ran(session) -> str:
    blocks = {b.id: b for b in build_report(session).section("install").blocks}
    return blocks["command_ran"].text


@pytest.mark.parametrize("source", ["https://pypi.org/simple", "https://pypi.mirror.example.kr/simple",
                                    "http://127.0.0.1:8123/simple"])
def test_the_extras_source_is_an_extra_index_in_the_command(source):
    command = _command_ran(_session(source))
    assert command == ("python -m pip install torch==2.8.0 torchvision==0.23.0 transformers>=4.40 "
                       f"--index-url {MIRROR} --extra-index-url {source}")


@pytest.mark.parametrize("source", [None, "", MIRROR, MIRROR + "/", "http://pypi.example.com/simple",
                                    "file:///srv/simple", "https://x.example/simple --trusted-host evil"])
def test_no_extra_index_without_a_source_of_their_own_or_for_an_address_not_https(source):
    command = _command_ran(_session(source))
    assert "--extra-index-url" not in command
    assert command.endswith(f"--index-url {MIRROR}")


def test_a_source_with_a_password_is_shown_without_it():
    command = _command_ran(_session("https://student:secret@pypi.mirror.example.kr/simple"))
    assert command.endswith("--extra-index-url https://pypi.mirror.example.kr/simple")
    assert "secret" not in command


def test_the_planned_command_names_the_source_too():
    from wizard.app.install import InstallOptions
    from wizard.app.install_request import InstallRequest
    from wizard.core.install.environments import new_venv

    s = _session(None)
    s.install = None  # set up on the Environment page, not installed yet
    options = InstallOptions(["torch==2.8.0", "transformers>=4.40"], MIRROR)
    options.extras_index = "https://pypi.org/simple"
    s.install_request = InstallRequest(new_venv("/envs/dl", "/usr/bin/python3"), options)
    blocks = {b.id: b for b in build_report(s).section("install").blocks}
    assert blocks["command"].text == ("python -m pip install torch==2.8.0 transformers>=4.40 "
                                      f"--index-url {MIRROR} --extra-index-url https://pypi.org/simple")
