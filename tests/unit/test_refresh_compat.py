"""refresh-compat against saved pages: which facts it rebuilds, which it must never touch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from nacl.signing import SigningKey

from wizard.core.recommend import update
from wizard.core.recommend.compat import parse
from wizard.tools import refresh_compat as rc

SAVED = Path(__file__).resolve().parents[1] / "data" / "compat_refresh"
HAND_VERIFIED = ("cuda_toolkit_drivers", "minor_version_compat", "variants", "cuda_archs", "gpu_archs",
                 "xpu_gpu_names", "advice", "index", "schema", "_doc")


def before_2_15_confirmed() -> dict:
    """The table as it stood before the refresh: 2.15 unverified, no Linux PyPI default."""
    data = json.loads(rc.RESOURCE.read_text(encoding="utf-8"))
    rel = next(r for r in data["releases"] if r["torch"] == "2.15")
    rel["confidence"] = "unverified"
    rel["src"] = [s for s in rel["src"] if s != "pypi-json"]
    rel["pypi_default"] = {"windows-x86_64": "cpu", "macos-arm64": "mps"}
    rel["unverified"] = {"variants": "cu130/cu132/cpu per RFC", "pypi_default": "PyPI metadata of 2.15 could not be read"}
    data["sources"].pop("pypi-json", None)
    return data


def page(version: str, local: str, plats: list[str]) -> str:
    tags = {"linux-x86_64": "manylinux_2_28_x86_64", "linux-aarch64": "manylinux_2_28_aarch64",
            "windows-x86_64": "win_amd64"}
    links = [f'<a href="/whl/{local}/torch-{version}%2B{local}-cp313-cp313-{tags[p]}.whl#sha256=00">'
             f"torch-{version}+{local}-cp313-cp313-{tags[p]}.whl</a><br/>" for p in plats]
    return "<!DOCTYPE html><html><body><h1>Links for torch</h1>\n" + "\n".join(links) + "\n</body></html>\n"


def run_refresh(data: dict, pages: dict[str, str | None]):
    project = json.loads((SAVED / "pypi" / "torch.json").read_text(encoding="utf-8"))
    return rc.refresh(data, project, pages, "2026-12-01")


def test_pypi_confirms_2_15_and_keeps_hand_verified_facts():
    old = before_2_15_confirmed()
    result = run_refresh(old, {"cu130": None, "cu132": None, "cpu": None})
    rel = next(r for r in result.data["releases"] if r["torch"] == "2.15")
    assert rel["confidence"] == "confirmed"
    assert rel["python"] == ["3.11", "3.12", "3.13", "3.14", "3.15"]
    assert rel["pypi_default"]["linux-x86_64"] == "cu132"  # Requires-Dist cuda-toolkit==13.2.2
    assert "cu130" in rel["unverified"] and "cu132" not in rel["unverified"]
    assert "pypi_default" not in rel["unverified"]
    for key in HAND_VERIFIED:
        assert result.data[key] == old[key], key
    others = [r for r in result.data["releases"] if r["torch"] != "2.15"]
    assert others == [r for r in old["releases"] if r["torch"] != "2.15"]
    assert result.data["reviewed_on"] == "2026-12-01" and "pypi-json" in result.data["sources"]
    parse(result.data)


def test_index_pages_confirm_or_flag_variants():
    old = before_2_15_confirmed()
    pages = {"cu130": page("2.15.0", "cu130", ["linux-x86_64", "linux-aarch64", "windows-x86_64"]),
             "cu132": page("2.15.0", "cu132", ["linux-x86_64", "windows-x86_64"]),  # no aarch64 wheel
             "cpu": page("2.15.0", "cpu", ["linux-x86_64", "linux-aarch64", "windows-x86_64"])}
    rel = next(r for r in run_refresh(old, pages).data["releases"] if r["torch"] == "2.15")
    assert "cu130" not in rel.get("unverified", {})
    assert "linux-aarch64" in rel["unverified"]["cu132"]


def test_refreshing_the_shipped_table_again_changes_nothing():
    data = json.loads(rc.RESOURCE.read_text(encoding="utf-8"))
    result = run_refresh(data, {"cu130": None, "cu132": None, "cpu": None})
    assert result.changes == []
    assert rc.dump(result.data) == rc.RESOURCE.read_text(encoding="utf-8")


def test_a_new_minor_on_pypi_is_reported_not_added():
    project = json.loads((SAVED / "pypi" / "torch.json").read_text(encoding="utf-8"))
    project["releases"]["2.16.0"] = [{"filename": "torch-2.16.0-cp313-cp313-manylinux_2_28_x86_64.whl",
                                      "upload_time": "2026-12-20T00:00:00"}]
    data = json.loads(rc.RESOURCE.read_text(encoding="utf-8"))
    result = rc.refresh(data, project, {}, "2026-12-21")
    assert any("2.16" in n and "by hand" in n for n in result.notes)
    assert "2.16" not in {r["torch"] for r in result.data["releases"]}


def test_command_line_diff_only_writes_nothing_then_writes_and_signs(tmp_path, capsys):
    table = tmp_path / "compat.json"
    table.write_text(rc.dump(before_2_15_confirmed()), encoding="utf-8")
    original = table.read_bytes()
    assert rc.main(["--from", str(SAVED), "--in", str(table), "--diff-only", "--today", "2026-12-01"]) == 0
    shown = capsys.readouterr().out
    assert "2.15: confidence unverified -> confirmed" in shown and "index pages not read" in shown
    assert table.read_bytes() == original
    seed = SigningKey.generate()
    (tmp_path / "key").write_text(bytes(seed).hex())
    assert rc.main(["--from", str(SAVED), "--in", str(table), "--diff", str(tmp_path / "review.md"),
                    "--today", "2026-12-01", "--sign-key", str(tmp_path / "key"),
                    "--file-url", "https://example.org/compat.json"]) == 0
    assert "confirmed" in (tmp_path / "review.md").read_text(encoding="utf-8")
    manifest = update.verify_manifest((tmp_path / "compat.json.manifest.json").read_bytes(),
                                      (bytes(seed.verify_key),))
    assert manifest.reviewed_on == "2026-12-01" and manifest.url == "https://example.org/compat.json"
    assert manifest.size == len(table.read_bytes())


def test_saved_pages_missing_are_said_not_guessed(tmp_path, capsys):
    empty = tmp_path / "saved"
    (empty / "pypi").mkdir(parents=True)
    shutil.copy(SAVED / "pypi" / "torch.json", empty / "pypi" / "torch.json")
    fetch = rc.dir_fetcher(empty)
    project, pages, errors = rc.read_sources(before_2_15_confirmed(), fetch)
    assert project is not None and set(pages) >= {"cu130", "cu132", "cpu"}
    assert all(v is None for v in pages.values()) and errors


def test_wheel_names():
    w = rc.parse_wheel("torch-2.15.0%2Bcu130-cp315-cp315-manylinux_2_28_aarch64.whl#sha256=ab")
    assert (w.version, w.local, w.python, w.platform) == ("2.15.0", "cu130", "3.15", "linux-aarch64")
    assert rc.parse_wheel("torch-2.15.0-cp314-cp314t-win_amd64.whl").python is None  # free-threaded
    assert rc.parse_wheel("torch-2.15.0-cp313-cp313-macosx_14_0_arm64.whl").macos_min == "14.0"
    assert rc.parse_wheel("torch-2.15.0.tar.gz") is None
