"""The real window's start-up path: the first page alone, the later pages added after it.

``wizard.ui.app.run`` builds the window with ``defer_pages=True`` (stand-ins for every page
after the first, so the buttons are right) and adds the real pages once the first page has
been painted, their modules loaded on a worker thread. These tests walk that path: the pages
arrive, and Next before they arrive still lands on the real next page.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QWizardPage  # noqa: E402

from tests import scenarios  # noqa: E402
from wizard.app.session import Session  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FLOW = ["SystemPage", "GpuPage", "RecommendPage", "EnvironmentPage", "InstallPage", "VerifyPage", "BenchmarkPage",
        "VramPage", "ReportPage"]


def run_fresh(code: str, *args: str) -> str:
    """``code`` in a fresh interpreter (offscreen): what start-up loads is only seen in a new process."""
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    return out.stdout


def walk(window) -> list[str]:
    names, page_id = [], window.startId()
    while page_id != -1 and len(names) <= len(FLOW):
        page = window.page(page_id)
        names.append(type(page).__name__)
        page_id = page.nextId()
    return names


def test_stand_ins_then_the_real_pages_from_a_worker(qtbot):
    window = SetupWizard(Session(host=scenarios.linux_host()), defer_pages=True)
    qtbot.addWidget(window)
    assert walk(window) == ["SystemPage"] + ["QWizardPage"] * (len(FLOW) - 1)
    assert not window.pages_ready
    window.show()
    window.add_pages_in_background()
    qtbot.waitUntil(lambda: window.pages_ready, timeout=30000)
    assert walk(window) == FLOW
    assert window.gpu_page is window.page(PageId.GPU) and window.report_page is window.page(PageId.REPORT)
    assert not window.gpu_page.built  # added, not built: that happens on first show


def test_next_before_the_pages_arrive_goes_to_the_real_gpu_page(qtbot):
    window = SetupWizard(Session(host=scenarios.linux_host()), defer_pages=True)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.model.detection_finished, timeout=30000):
        window.start()
    assert type(window.page(PageId.GPU)) is QWizardPage
    window.next()
    assert window.currentId() == PageId.GPU and window.currentPage() is window.gpu_page
    assert window.gpu_page.built and window.gpu_page.headline.text()


def test_smoke_test_window_imports_no_later_page():
    """What the first paint waits for: not the install engine, not the later pages."""
    code = ("import sys\nfrom wizard.ui import app\n"
            "from PySide6.QtWidgets import QApplication\nqapp = QApplication([])\n"
            "from wizard.ui.main_wizard import SetupWizard, LATER_PAGE_MODULES\n"
            "w = SetupWizard(app.Session(), defer_pages=True); w.show(); qapp.processEvents()\n"
            "print(sorted(m for m in LATER_PAGE_MODULES + ('wizard.app.install', 'wizard.core.install.job')"
            " if m in sys.modules))")
    assert run_fresh(code).strip().splitlines()[-1] == "[]"


def test_the_first_paint_creates_no_qt_enum_namespace():
    """PySide creates all ~90 enums of the ``Qt`` namespace (15-20 ms) the first time one is
    touched; the first page paints without any (its boxes come after: SetupWizard.after_first_paint),
    in Korean and English, and the boxes then arrive with the namespace. A bare QWizard's paint
    creates none either, so a change that touches ``Qt.*`` on the way to the first paint fails here."""
    code = ("import sys\nfrom PySide6 import QtCore\nfrom wizard.ui import app\n"
            "from wizard.ui.main_wizard import SetupWizard\n"
            "qapp = app.create_app(lang=sys.argv[1])\n"
            "w = SetupWizard(app.Session(lang=sys.argv[1]), defer_pages=True)\n"
            "def painted():\n"
            "    print('at first paint', 'Qt' in vars(QtCore), w.system_page.built)\n"
            "    w.system_page.ensure_built()\n"
            "    print('after', 'Qt' in vars(QtCore), w.system_page.python_tree.isVisible())\n"
            "    qapp.exit(0)\n"
            "f = app._FirstPaint(painted); w.page(w.startId()).installEventFilter(f); w.show()\n"
            "sys.exit(qapp.exec())")
    for lang in ("ko", "en"):
        out = run_fresh(code, lang)
        assert out.split("\n")[:2] == ["at first paint False False", "after True True"], (lang, out)


def test_a_detection_that_ends_first_is_shown_once_the_boxes_come(qtbot):
    """after_first_paint builds the System page's boxes after the later pages' modules have
    loaded on the worker; a detection that ends before that waits for them (no Qt namespace made
    on the GUI thread for it) and is in the boxes as soon as they are built."""
    window = SetupWizard(Session(host=scenarios.linux_host()), defer_pages=True)
    qtbot.addWidget(window)
    window.show()
    window.system_page.boxes_coming = True  # what after_first_paint says before its worker starts
    with qtbot.waitSignal(window.model.detection_finished, timeout=30000):
        window.start()
    assert window.system_page.built is False
    window.after_first_paint()
    qtbot.waitUntil(lambda: window.pages_ready, timeout=30000)
    page = window.system_page
    assert page.built and page.form.rowCount() >= 9 and page.isComplete()
    system = window.model.session.detection.system
    assert page.form._rows["system.page.os"][1].text().startswith(system.os_pretty or system.os)


def test_the_real_window_gets_its_icon_after_the_first_paint():
    """run() sets the wizard's icon just after the first paint (set_window_icon), not before it."""
    code = ("import sys\nfrom PySide6.QtCore import QTimer\n"
            "from wizard.ui import app\n"
            "seen = {}\n"
            "make = app.create_app\n"
            "def create_app(*a, **k):\n"
            "    qapp = make(*a, **k)\n"
            "    seen['before'] = not qapp.windowIcon().isNull()\n"
            "    def look():\n"
            "        seen['after'] = not qapp.windowIcon().isNull()\n"
            "        qapp.quit()\n"
            "    QTimer.singleShot(1500, look)\n"
            "    return qapp\n"
            "app.create_app = create_app\n"
            "status = app.run(lang='en')\n"
            "print('icon before', seen.get('before'), 'after first paint', seen.get('after'), status)")
    assert run_fresh(code).strip().splitlines()[-1] == "icon before False after first paint True 0"


def test_the_first_paint_opens_no_window_but_the_wizard():
    """Up to the first paint only the wizard itself is shown as a window. A widget made visible
    before it has a parent (the System page's busy bar was) opens as a window of its own for a
    moment: on Windows and under wine a real native window, created and destroyed again, which
    cost the frozen wizard's first paint 300-600 ms under wine."""
    code = ("import sys\nfrom PySide6.QtCore import QEvent, QObject\nfrom wizard.ui import app\n"
            "from wizard.ui.main_wizard import SetupWizard\n"
            "qapp = app.create_app(lang=sys.argv[1])\n"
            "shown = []\n"
            "class Windows(QObject):\n"
            "    def eventFilter(self, obj, event):\n"
            "        if event.type() == QEvent.Type.Show and obj.isWidgetType() and obj.isWindow():\n"
            "            shown.append(type(obj).__name__)\n"
            "        return False\n"
            "spy = Windows(); qapp.installEventFilter(spy)\n"
            "w = SetupWizard(app.Session(lang=sys.argv[1]), defer_pages=True)\n"
            "def painted():\n"
            "    print('windows shown', shown)\n"
            "    qapp.exit(0)\n"
            "f = app._FirstPaint(painted); w.page(w.startId()).installEventFilter(f); w.show()\n"
            "sys.exit(qapp.exec())")
    for lang in ("ko", "en"):
        assert run_fresh(code, lang).strip().splitlines()[-1] == "windows shown ['SetupWizard']", lang


def test_the_first_paint_reads_only_the_message_files_it_shows():
    """Up to the first paint the catalogue reads the files of the keys the first page shows, each
    key's own file (i18n.own_file): one history.* key once made it read 13 of the 22 files,
    each one more open and read under wine."""
    code = ("import os, sys\nfrom wizard.ui import app\nfrom wizard.core.base import i18n\n"
            "from wizard.ui.main_wizard import SetupWizard\n"
            "qapp = app.create_app(lang=sys.argv[1])\n"
            "w = SetupWizard(app.Session(lang=sys.argv[1]), defer_pages=True)\n"
            "def painted():\n"
            "    store = i18n._store()\n"
            "    left = {p.name for p in store.pending or []}\n"
            "    print('read', sorted(n for n in os.listdir(store.folder) if n.endswith('.json') and n not in left))\n"
            "    qapp.exit(0)\n"
            "f = app._FirstPaint(painted); w.page(w.startId()).installEventFilter(f); w.show()\n"
            "sys.exit(qapp.exec())")
    for lang in ("ko", "en"):
        out = run_fresh(code, lang).strip().splitlines()[-1]
        assert out == "read ['common.json', 'history.json', 'system.json', 'window.json']", (lang, out)


def test_the_first_paint_imports_no_module_whose_bundle_hook_is_deferred():
    """The bundle runs multiprocessing's and traitlets' runtime hooks when those modules are
    first imported (installers/deferred_rthooks.py); the first paint imports neither, so their
    imports are not part of it."""
    code = ("import sys\nfrom wizard.ui import app\n"
            "from wizard.ui.main_wizard import SetupWizard\n"
            "qapp = app.create_app(lang='ko')\n"
            "w = SetupWizard(app.Session(lang='ko'), defer_pages=True)\n"
            "def painted():\n"
            "    print('loaded', sorted(m for m in ('multiprocessing', 'traitlets') if m in sys.modules))\n"
            "    qapp.exit(0)\n"
            "f = app._FirstPaint(painted); w.page(w.startId()).installEventFilter(f); w.show()\n"
            "sys.exit(qapp.exec())")
    assert run_fresh(code).strip().splitlines()[-1] == "loaded []"
