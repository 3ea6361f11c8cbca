"""The Colab/SSH path that works today: ``gpu-setup-wizard colab-cell`` prints a cell that
carries the wizard's own probes, the cell runs in a Python that has torch (here the test venv
with a CPU torch, standing in for Colab's kernel or a cloud GPU's Python) and saves or prints a
result JSON, and that JSON goes back through the one add-remote reader into the report -- the
command line's ``report --add-remote`` and the application layer the Report page uses.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests import report_sessions as rs
from tests.torch_env import TORCH_SPEC  # noqa: F401  (torch_python is a shared fixture)
from wizard.app import report as app_report
from wizard.cli import main as cli_main
from wizard.core.report.colab_cell import RESULT_NAME
from wizard.core.report.remote import machine_from_file
from wizard.core.report.render import render_markdown

pytestmark = pytest.mark.slow


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLAB_", "PYTHONPATH"))}
    env.update(extra)
    return env


def test_the_colab_cell_runs_and_fills_the_colab_line(torch_python, tmp_path, capsys):
    cell = tmp_path / "cell.py"
    assert cli_main(["--lang", "en", "colab-cell", "-o", str(cell)]) == 0
    text = cell.read_text(encoding="utf-8")
    assert "pip install" not in text and "gpu-setup-result.json" in text
    work = tmp_path / "content"  # Colab's working folder
    work.mkdir()
    # COLAB_RELEASE_TAG: the variable Colab's kernel has; google.colab is not importable here,
    # so the cell says where the file is instead of offering the download
    res = subprocess.run([str(torch_python), str(cell)], cwd=work, capture_output=True, text=True, timeout=900,
                         env=_clean_env(COLAB_RELEASE_TAG="release-colab-20261201"))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "saved" in res.stderr and "Files pane" in res.stderr
    assert "torch 2.13.0+cpu | CUDA not available | GPU: none | CPU " in res.stderr
    result = work / RESULT_NAME
    doc = json.loads(result.read_text(encoding="utf-8"))
    assert doc["schema"] == "gpu-setup-wizard/remote-probe@1.0" and doc["kind"] == "colab"
    machine = machine_from_file(result)
    assert machine.kind == "colab" and machine.source == "remote-probe"
    assert machine.torch_version == "2.13.0+cpu" and machine.cuda_available is False
    assert machine.cpu_s and machine.cpu_s > 0 and machine.bench_size == 5000  # the quick benchmark ran
    # the command line: report --add-remote FILE
    capsys.readouterr()
    assert cli_main(["--lang", "ko", "report", "--format", "md", "--add-remote", str(result)]) == 0
    md = capsys.readouterr().out
    colab_line = next(line for line in md.splitlines() if line.startswith("- Colab 실행 여부:"))
    assert "torch 2.13.0+cpu" in colab_line and "마법사의 Colab/SSH 점검" in colab_line
    # the application layer (the Report page's "Add Colab/cloud result…" calls the same)
    session = rs.no_gpu_session("en")
    app_report.add_remote(session, machine)
    report = app_report.build(session)
    assert report.item("checklist", "colab").status == "pass"
    rows = {r[0]: r for r in report.section("benchmark").tables[0].rows}
    assert any(k.startswith("Colab") for k in rows)
    colab_row = next(r for k, r in rows.items() if k.startswith("Colab"))
    assert colab_row[3] == "2.13.0+cpu" and colab_row[4].endswith(" s")
    assert "pip install gpu-setup-wizard" not in render_markdown(report)


def test_the_ssh_form_prints_the_result_for_a_cloud_gpu(torch_python, tmp_path):
    script = tmp_path / "remote.py"
    assert cli_main(["colab-cell", "--ssh", "--no-bench", "-o", str(script)]) == 0
    # as `gpu-setup-wizard colab-cell --ssh | ssh SERVER python3 - > cloud.json` runs it: from stdin
    with open(script, "rb") as stdin:
        res = subprocess.run([str(torch_python), "-"], stdin=stdin, cwd=tmp_path, capture_output=True, timeout=600,
                             env=_clean_env())
    assert res.returncode == 0, res.stderr.decode("utf-8", "replace")[-3000:]
    cloud = tmp_path / "cloud.json"
    cloud.write_bytes(res.stdout)
    assert not (tmp_path / RESULT_NAME).exists()  # the SSH form writes nothing on the server
    machine = machine_from_file(cloud)
    assert machine.kind == "cloud" and machine.torch_version == "2.13.0+cpu"
    assert machine.cpu_s is None  # --no-bench
    session = rs.no_gpu_session("ko")
    app_report.add_remote(session, machine)
    line = app_report.build(session).item("checklist", "cloud")
    assert line.status == "pass" and "torch 2.13.0+cpu" in line.value
