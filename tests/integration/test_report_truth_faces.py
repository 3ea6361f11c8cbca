"""Report truth across the faces: on this CPU-only machine the window's Report page and
``gpu-setup-wizard report`` give the same lesson verdicts in Markdown, JSON and HTML, the small
lessons "runs on this CPU", and the VRAM page's untouched default example is no verdict in either.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("pytestqt")

from wizard.core.base.host import RealHost  # noqa: E402

pytestmark = pytest.mark.gui


# --- the faces agree on the lessons -----------------------------------------------------------------------
def _judgment(md: str) -> str:
    """The Markdown from the judgment heading to the next section, and the VRAM lessons table."""
    parts = re.split(r"(?m)^## ", md)
    wanted = [p for p in parts if p.startswith(("판단", "Judgment", "VRAM"))]
    return "\n".join(wanted)


def _html_lessons(html: str) -> list[str]:
    """The judgment items and lessons table rows of an HTML report, tags dropped."""
    start = html.index('<h2 id="judgment">')
    end = html.index('<h2 id="verify_checklist">')
    judgment = re.sub(r"<[^>]+>", " ", html[start:end])
    table = html[html.index('id="table-lessons"'):]
    table = re.sub(r"<[^>]+>", " ", table[:table.index("</table>")])
    return [" ".join(judgment.split()), " ".join(table.split())]


def _json_lessons(doc: dict[str, Any]) -> list[Any]:
    sections = {s["id"]: s for s in doc["sections"]}
    lessons = [t for t in sections["vram"]["tables"] if t["id"] == "lessons"]
    return [sections["judgment"]["items"], sections["judgment"]["paragraphs"], lessons]


@pytest.mark.slow
def test_a_cpu_only_machine_gets_the_same_lessons_in_every_face_and_format(qtbot, student_home):
    from tests.cli_runner import run_cli
    from tests.gui.wizard_driver import open_wizard
    from wizard.ui.pages.base import PageId

    window = open_wizard(qtbot, RealHost())
    if window.model.session.detection.nvidia.gpus:
        pytest.skip("this machine has an NVIDIA GPU; the test is about a CPU-only one")
    window.next()  # GPU & driver
    window.next()  # Recommendation
    window.environment_page.skip_install()
    window.setStartId(PageId.VRAM)
    vram = window.page(PageId.VRAM)
    vram.initializePage()  # the page computes its default example into the session
    assert window.model.session.vram is not None and not window.model.session.vram_chosen
    page = window.report_page
    page.refresh()
    gui = {"md": page.text("md").decode("utf-8"), "json": json.loads(page.text("json").decode("utf-8")),
           "html": page.text("html").decode("utf-8")}
    cli = {}
    for fmt in ("md", "json", "html"):
        done = run_cli("report", "--format", fmt)
        assert done.exit_status == 0, done.stderr
        cli[fmt] = done.json if fmt == "json" else done.stdout
    assert _judgment(gui["md"]) == _judgment(cli["md"])
    assert _json_lessons(gui["json"]) == _json_lessons(cli["json"])
    assert _html_lessons(gui["html"]) == _html_lessons(cli["html"])
    runs_here = next(i for i in _json_lessons(gui["json"])[0] if i["id"] == "runs_here")
    assert runs_here["value"] != "none" and all("runs on this CPU" in d for d in runs_here["details"])
    assert "runs on this CPU" in _html_lessons(gui["html"])[1]
    # the VRAM page's untouched default example is no verdict in either face
    for face in (gui, cli):
        vram_items = next(s for s in face["json"]["sections"] if s["id"] == "vram")["items"]
        assert [i["status"] for i in vram_items] == ["not_run"]
