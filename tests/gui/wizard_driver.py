"""Driving the real wizard window in a test: open it on a host, walk to a page, show a recorded
checklist. Plain helpers (not fixtures) that the page tests and the screenshot scripts share."""

from __future__ import annotations

from wizard.app.session import Session
from wizard.ui.main_wizard import SetupWizard
from wizard.ui.pages.base import PageId

GPU_VERIFY = "verify_rtx3060_cu128_linux.jsonl"  # every GPU check, as an RTX 3060 answered them


def open_wizard(qtbot, host, lang="en"):
    """The window on ``host``, shown, once detection has finished."""
    window = SetupWizard(Session(host=host, lang=lang))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.model.detection_finished, timeout=60_000):
        window.start()
    return window


def go_to(window, page_id):
    """Press Next until ``page_id`` is shown (skipping the install, as a student may)."""
    while window.currentId() != page_id:
        if window.currentId() == PageId.ENVIRONMENT:
            window.environment_page.skip_install()
        assert window.currentPage().isComplete(), window.currentId()
        window.next()


def show_recorded_verify(window, recording: str = "verify_cpu_only_no_gpu_linux.jsonl") -> None:
    """The Verify page showing a recorded checklist: by default a CPU build on a PC without an
    NVIDIA GPU."""
    from tests.report_sessions import probe_events
    from wizard.core.verify.checklist import VerifyReport

    session = window.model.session
    report = VerifyReport.from_events(probe_events(recording),
                                      detection=session.detection, python_exe="/home/student/env/bin/python")
    window.verify_page.show_report(report)
    for i in range(window.verify_page.tree.topLevelItemCount()):
        window.verify_page.tree.topLevelItem(i).setExpanded(True)


def open_report_page(qtbot, session=None, lang="ko"):
    """(window, Report page) for ``session`` (the recorded RTX 3060 run by default), the report built."""
    from tests import report_sessions as rs
    from wizard.ui.pages.report_page import register_report_page

    session = session or rs.full_session(lang)
    window = SetupWizard(session)
    qtbot.addWidget(window)
    page = register_report_page(window)
    window.setStartId(PageId.REPORT)
    window.show()
    qtbot.waitUntil(lambda: window.currentId() == PageId.REPORT and page.report is not None, timeout=10000)
    return window, page
