"""`gpu-setup-wizard report` as a student runs it (``python -m wizard report``): the real command
line in-process, real output, real files."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests import report_sessions as rs
from tests.cli_runner import run_cli
from wizard.core.report.as_json import loads

pytestmark = pytest.mark.slow


@pytest.fixture
def data_dir(tmp_path):
    """An empty history, so the run does not compare with the developer's own."""
    folder = tmp_path / "gsw-data"
    folder.mkdir()
    return {"GSW_DATA_DIR": str(folder)}


def test_markdown_to_stdout_in_korean(data_dir):
    out = run_cli("report", "--lang", "ko", env=data_dir)
    assert out.returncode == 0, out.stderr
    heads = [line for line in out.stdout.splitlines() if line.startswith("#")]
    assert heads[:3] == ["# GPU/Cloud 환경 점검 결과", "## 벤치마크(Benchmark)", "## 판단"]
    # headless: the window's steps are not run, and say so
    assert "- PyTorch CUDA: 실행 안 함" in out.stdout and "- CPU 시간 (CPU time): 실행 안 함" in out.stdout
    assert "## 부록 B: nvidia-smi (이 컴퓨터)" in out.stdout


def test_json_loads_back_and_describes_this_machine(data_dir):
    import platform

    out = run_cli("report", "--json", env=data_dir)
    assert out.returncode == 0, out.stderr
    report = loads(out.stdout)
    assert report.lang == "en" and report.local.kind == "local" and report.local.source == "detection"
    assert report.item("checklist", "date").value[:4].isdigit()
    # the recommendation is pure and ran; install/verify/benchmark did not
    assert report.item("install", "recommended").status != "not_run"
    assert report.item("install", "installed").status == "not_run"
    assert report.local.cpu_s is None and report.local.torch_version is None
    system = report.item("system", "os").value
    assert platform.machine() in system or platform.machine().lower() in system.lower()
    assert json.loads(out.stdout)["schema"] == "gpu-setup-wizard/report@1.1"


def test_html_to_stdout(data_dir):
    out = run_cli("report", "--format", "html", env=data_dir)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("<!DOCTYPE html>") and "<script" not in out.stdout


@pytest.mark.parametrize("fmt", ["md", "html", "json", "pdf"])
def test_each_format_to_a_hangul_path_with_a_space(fmt, tmp_path, data_dir):
    if fmt == "pdf" and not shutil.which("pdftotext"):
        pytest.skip("poppler-utils (pdftotext) is not installed")
    folder = tmp_path / "내 문서"
    folder.mkdir()
    target = folder / f"점검 결과 보고서.{fmt}"
    out = run_cli("report", "--lang", "ko", "-o", str(target), env=data_dir)  # the format comes from the suffix
    assert out.returncode == 0, out.stderr
    assert str(target) in out.stderr and out.stdout == ""
    assert [p.name for p in folder.iterdir()] == [target.name]  # written atomically: no temporary file left
    if fmt == "pdf":
        text = subprocess.run(["pdftotext", str(target), "-"], capture_output=True, timeout=60).stdout.decode()
        assert "GPU/Cloud 환경 점검 결과" in text and "판단" in text
    elif fmt == "json":
        assert loads(target.read_text(encoding="utf-8")).title == "GPU/Cloud 환경 점검 결과"
    else:
        assert "GPU/Cloud 환경 점검 결과" in target.read_text(encoding="utf-8")


def test_pdf_without_output_goes_to_a_dated_file(tmp_path, data_dir):
    out = run_cli("report", "--format", "pdf", env=data_dir, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    made = list(tmp_path.glob("gpu-setup-report-*.pdf"))
    assert len(made) == 1 and made[0].read_bytes().startswith(b"%PDF-")


def test_add_remote_colab_paste(data_dir):
    paste = rs.REPORT_DATA / "colab_nvidia_smi.txt"
    out = run_cli("report", "--json", "--add-remote", str(paste), env=data_dir)
    assert out.returncode == 0, out.stderr
    report = loads(out.stdout)
    colab = report.item("checklist", "colab")
    assert colab.status == "pass" and "Tesla T4 (15.0 GiB)" in colab.value and "550.54.15" in colab.value
    assert report.item("checklist", "cloud").status == "not_run"
    table = report.section("benchmark").tables[0]
    assert [row[0] for row in table.rows] == ["This computer", "Colab · colab_nvidia_smi.txt"]


def test_add_remote_report_json_from_another_machine(tmp_path, data_dir):
    """The cloud machine runs `report --json`; its file comes back as the cloud line."""
    other = run_cli("report", "--json", env={**data_dir, "HOME": str(tmp_path)})
    assert other.returncode == 0, other.stderr
    remote = tmp_path / "cloud run.json"
    remote.write_text(other.stdout, encoding="utf-8")
    colab_env = {**data_dir, "COLAB_RELEASE_TAG": "release-colab_20261120-060000_RC00"}
    from_colab = run_cli("report", "--json", env=colab_env)
    colab_file = tmp_path / "colab.json"
    colab_file.write_text(from_colab.stdout, encoding="utf-8")
    out = run_cli("report", "--lang", "ko", "--add-remote", str(remote), "--add-remote", str(colab_file), env=data_dir)
    assert out.returncode == 0, out.stderr
    assert "- cloud GPU 사용 여부: 예 — " in out.stdout and "그 컴퓨터의 마법사 보고서" in out.stdout
    assert "- Colab 실행 여부: 예 — " in out.stdout  # told by the COLAB_ variables the run saw
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert any(line.startswith("| 클라우드 GPU · cloud run.json |") for line in rows)
    assert any(line.startswith("| Colab · colab.json |") for line in rows)


def test_add_remote_with_an_explicit_kind(data_dir):
    paste = rs.REPORT_DATA / "colab_nvidia_smi.txt"
    out = run_cli("report", "--json", "--add-remote", f"cloud:{paste}", env=data_dir)
    assert out.returncode == 0, out.stderr
    report = loads(out.stdout)
    assert report.item("checklist", "cloud").status == "pass" and report.item("checklist", "colab").status == "not_run"


@pytest.mark.parametrize("content,fragment", [(None, "Cannot read"), ("just some words\n", "cannot be added")])
def test_a_bad_remote_is_refused(tmp_path, data_dir, content, fragment):
    path = tmp_path / "remote.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    out = run_cli("report", "--add-remote", str(path), env=data_dir)
    assert out.returncode == 2 and fragment in out.stderr and out.stdout == ""


def test_home_with_a_hangul_user_name_is_hidden_unless_asked(tmp_path, data_dir):
    home = tmp_path / "김 철수"
    home.mkdir()
    env = {**data_dir, "HOME": str(home), "USER": "김철수", "USERNAME": "김철수"}
    out = run_cli("report", "--lang", "ko", env=env)
    assert out.returncode == 0, out.stderr
    assert str(home) not in out.stdout and "김 철수" not in out.stdout and "김철수" not in out.stdout
    shown = run_cli("report", "--lang", "ko", "--include", "private", env=env)
    assert shown.returncode == 0, shown.stderr
    assert str(home) in shown.stdout  # the free-disk line names the environments' folder under home
    assert "포함되어 있습니다" in shown.stdout


def test_an_unwritable_target_is_an_error(tmp_path, data_dir):
    out = run_cli("report", "-o", str(tmp_path / "missing" / "r.md"), env=data_dir)
    assert out.returncode == 2 and "cannot write" in out.stderr


def test_help_lists_the_options():
    out = run_cli("report", "--help")
    assert out.returncode == 0
    for option in ("--format", "-o", "--lang", "--include", "--add-remote", "--json"):
        assert option in out.stdout
