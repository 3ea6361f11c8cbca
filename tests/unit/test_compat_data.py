"""resources/compat.json: accepted by its parser (the one validator), internally consistent, and faithful to the
research it was derived from (../shared/reference/torch-compat.json, when that folder is present)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from wizard.core.base.resources import resource_path
from wizard.core.recommend import compat
from wizard.core.recommend.compat import parse
from wizard.core.recommend.compat_model import SCHEMA, ArchList, CompatDataError, minor_of, parse_cc, version

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"


@pytest.fixture(scope="module")
def raw() -> dict:
    with open(resource_path("compat.json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def kb():
    return compat.load()


@pytest.fixture(scope="module")
def reference() -> dict:
    path = REFERENCE / "torch-compat.json"
    if not path.exists():
        pytest.skip("../shared/reference/torch-compat.json is absent: cannot compare with the research")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


# ---------------------------------------------------------------------------------------------
# schema and structure
# ---------------------------------------------------------------------------------------------
def test_the_bundled_file_parses(raw):
    """The parser is the validator (no JSON Schema copy to keep in step): the shipped table passes."""
    db = parse(raw)
    assert db.releases and db.variants and db.cuda_archs and db.gpu_archs


@pytest.mark.parametrize("change,match", [
    (lambda d: d["variants"]["cu126"]["toolkit_driver"].__setitem__("windows", "five-sixty"),
     r"variants\.cu126\.toolkit_driver\.windows: 'five-sixty' is not of the form"),
    (lambda d: d["releases"][0].__setitem__("src", []), r"releases\[[0-9.]+\]\.src: a fact needs at least one source"),
    (lambda d: d.__setitem__("reviewed_on", "last spring"), r"compat\.reviewed_on: 'last spring'"),
    (lambda d: d["variants"]["cu128"].pop("minor_compat_driver"), r"variants\.cu128: missing 'minor_compat_driver'"),
    (lambda d: d["releases"][0].__setitem__("python", ["3.10", "three"]), r"releases\[[0-9.]+\]\.python"),
    (lambda d: d["releases"][0].__setitem__("confidence", "probably"), r"confidence: 'probably' not one of"),
    (lambda d: d["cuda_archs"][0]["archs"].__setitem__("linux-x86_64", "8.6;nine"), r"cuda_archs\[0\]\.archs\.linux-x86_64"),
    (lambda d: d["advice"].pop("colab"), r"advice: missing \['colab'\]"),
    (lambda d: d["gpu_archs"].__setitem__(0, "8.6"), r"gpu_archs\[0\]: expected an object"),
    (lambda d: d["index"].__setitem__("pypi", "http://pypi.org/simple"), r"index\.pypi"),
])
def test_malformed_data_is_rejected_with_its_path(raw, change, match):
    """A typo in any field is an error that says where it is: what the JSON Schema used to check."""
    with pytest.raises(CompatDataError, match=match):
        parse(_mutated(raw, change))


def test_header(raw, kb):
    assert raw["schema"] == SCHEMA == kb.schema
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw["reviewed_on"])


def test_every_source_id_resolves_and_every_fact_has_one(raw):
    sources = raw["sources"]
    missing: list[str] = []

    def walk(node, where):
        if isinstance(node, dict):
            if "src" in node:
                if not node["src"]:
                    missing.append(f"{where}: empty src")
                missing.extend(f"{where}: unknown source {s}" for s in node["src"] if s not in sources)
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    walk({k: v for k, v in raw.items() if k != "sources"}, "compat")
    # the fact-bearing collections: each entry carries its own source
    for name in ("variants",):
        missing.extend(f"{name}.{k}: no src" for k, v in raw[name].items() if not v.get("src"))
    for name in ("cuda_archs", "gpu_archs", "releases"):
        missing.extend(f"{name}[{i}]: no src" for i, v in enumerate(raw[name]) if not v.get("src"))
    assert not missing, missing


def test_every_variant_a_release_names_has_driver_bars_and_an_arch_list(raw, kb):
    """The consistency the issue asks for, checked directly on the JSON (not through parse())."""
    problems = []
    for rel in raw["releases"]:
        for platform, names in rel["variants"].items():
            for name in names:
                info = raw["variants"].get(name)
                if info is None:
                    problems.append(f"{rel['torch']}/{platform}: unknown variant {name}")
                    continue
                if info["kind"] != "cuda":
                    continue
                for os_name in ("linux", "windows"):
                    if not info.get("toolkit_driver", {}).get(os_name) or not info.get("minor_compat_driver", {}).get(os_name):
                        problems.append(f"{name}: no {os_name} driver bar")
                if kb.archs_for(name, rel["torch"], platform) is None:
                    problems.append(f"{rel['torch']}/{platform}/{name}: no arch list")
    assert not problems, problems


def test_companion_versions_name_every_patch(kb):
    for rel in kb.releases:
        assert set(rel.torchvision) == set(rel.patches), rel.torch
        assert set(rel.torchaudio) == set(rel.patches), rel.torch
        for patch in rel.patches:
            # torchaudio followed torch exactly up to 2.11 (2.0.x was one patch ahead)
            ta = rel.torchaudio[patch]
            if rel.v < version("2.12"):
                assert ta is not None and minor_of(ta) == rel.torch, (patch, ta)
            else:
                assert ta is None and rel.torchaudio_separate, patch


def test_python_lists_are_contiguous(kb):
    for rel in kb.releases:
        minors = [int(p.split(".")[1]) for p in rel.python]
        assert minors == list(range(minors[0], minors[-1] + 1)), rel.torch


def test_windows_13x_bars_are_marked_as_assumptions(kb):
    for name in ("cu130", "cu132"):
        bars = kb.driver_bars(name, "windows")
        assert bars.toolkit_assumed, name


def test_toolkit_bar_is_never_below_the_minimum(kb):
    for name, info in kb.variants.items():
        if info.kind != "cuda":
            continue
        for os_name in ("linux", "windows"):
            bars = kb.driver_bars(name, os_name)
            assert version(bars.toolkit) >= version(bars.minimum), (name, os_name)


# ---------------------------------------------------------------------------------------------
# the loader refuses broken data
# ---------------------------------------------------------------------------------------------
def _mutated(raw, change):
    data = copy.deepcopy(raw)
    change(data)
    return data


@pytest.mark.parametrize("change,match", [
    (lambda d: d["releases"][0]["variants"]["linux-x86_64"].append("cu999"), "unknown variant"),
    (lambda d: d["cuda_archs"].__setitem__(slice(None), [e for e in d["cuda_archs"] if e["variant"] != "cu132"]),
     "no arch list"),
    (lambda d: d["releases"][3]["src"].append("no-such-source"), "unknown source"),
    (lambda d: d.__setitem__("schema", "gsw-compat/2"), "not supported"),
    (lambda d: d["variants"]["cu126"]["toolkit_driver"].__setitem__("linux", "500.01"), "below the minor-compat"),
    (lambda d: d["releases"][1]["torchvision"].pop(next(iter(d["releases"][1]["torchvision"]))), "torchvision"),
    (lambda d: d["releases"][0]["variants"]["windows-x86_64"].append("rocm7.2"), "only for linux-x86_64"),
    (lambda d: d["releases"][0]["pypi_default"].__setitem__("windows-x86_64", "cu126"), "pypi_default"),
])
def test_parse_rejects_inconsistent_data(raw, change, match):
    with pytest.raises(CompatDataError, match=match):
        parse(_mutated(raw, change))


def test_load_file_reads_an_updated_copy(tmp_path, raw):
    data = _mutated(raw, lambda d: d.__setitem__("reviewed_on", "2027-01-02"))
    path = tmp_path / "compat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert compat.load_file(path).reviewed_on == "2027-01-02"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CompatDataError, match="not JSON"):
        compat.load_file(path)


# ---------------------------------------------------------------------------------------------
# query semantics
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,cc", [("8.6", (8, 6)), ("sm_86", (8, 6)), ("86", (8, 6)), ("12.0", (12, 0)),
                                     ("sm_120", (12, 0)), ("120", (12, 0))])
def test_parse_cc(text, cc):
    assert parse_cc(text) == cc


def test_cubins_run_within_a_major_and_ptx_only_forward():
    archs = ArchList.parse("7.5;8.0;8.6;9.0;10.0;12.0+PTX")
    assert archs.cubin_for((8, 9)) == (8, 6)  # Ada runs the Ampere 8.6 code
    assert archs.cubin_for((12, 1)) == (12, 0)
    assert archs.cubin_for((6, 1)) is None  # Pascal is gone
    assert archs.cubin_for((11, 0)) is None
    assert archs.ptx_for((13, 0)) == (12, 0)  # a newer GPU compiles the 12.0 PTX
    assert archs.ptx_for((11, 0)) is None  # never backwards


def test_driver_cuda_mapping(kb):
    # 566.36 lies between 561.17 (12.6.3, Windows) and 570.65 (12.8.0): the table says 12.6
    assert kb.cuda_for_driver("566.36", "windows") == "12.6"
    assert kb.cuda_for_driver("570.124.06", "linux") == "12.8"
    assert kb.cuda_for_driver("580.95.05", "linux") == "13.0"
    assert kb.cuda_for_driver("400.1", "linux") is None
    assert kb.driver_for_cuda("12.8", "windows") == "570.65"
    assert kb.driver_for_cuda("12.8", "linux") == "570.26"


def test_release_lookup(kb):
    assert kb.release("2.1").newest_patch == "2.1.2"
    assert kb.release("2.1.0").torch == "2.1"
    assert kb.release("2.1.7") is None
    assert kb.release("1.13") is None
    assert [r.torch for r in kb.releases][:2] == ["2.15", "2.14"]
    assert kb.release("2.5").python_requires("linux-x86_64") == ">=3.9,<3.14"
    assert kb.release("2.5").python_requires("windows-x86_64") == ">=3.9,<3.13"


def test_index_urls(kb):
    assert kb.index_url("cu126") == "https://download.pytorch.org/whl/cu126"
    assert kb.index_url("mps", "macos-arm64") == "https://pypi.org/simple"
    assert kb.index_url("cpu", "macos-x86_64") == "https://pypi.org/simple"
    assert kb.index_url("cpu", "linux-aarch64") == "https://download.pytorch.org/whl/cpu"


# ---------------------------------------------------------------------------------------------
# faithful to the research it was derived from
# ---------------------------------------------------------------------------------------------
def test_toolkit_driver_table_matches_reference(reference, kb):
    ref = {(r["cuda"], r["linux_min"], r["windows_min"]) for r in reference["cuda_min_driver"]["toolkit_driver"]}
    ours = {(str(c), l, w) for c, l, w in kb.toolkit_rows}
    assert ours == ref


def test_minor_compat_bars_match_reference(reference, kb):
    ref = reference["cuda_min_driver"]["minor_version_compat"]
    for major, bars in kb.minor_compat.items():
        assert bars == {"linux": ref[f"{major}.x"]["linux_min"], "windows": ref[f"{major}.x"]["windows_min"]}


def test_variant_bars_match_reference(reference, kb):
    ref = reference["cuda_min_driver"]["by_pytorch_variant"]
    for name, entry in ref.items():
        info = kb.variant(name)
        assert info is not None, name
        assert info.minor_compat_driver == entry["minor_compat"], name
        # the reference writes "570.124.06 (12.8.1) / 570.26 (12.8.0)": our bar is its first number
        assert entry["toolkit_driver"]["linux"].startswith(info.toolkit_driver["linux"]), name


def _range(text: str) -> list[str]:
    lo, hi = re.match(r"(3\.\d+)-(3\.\d+)", text).groups()
    return [f"3.{i}" for i in range(int(lo.split(".")[1]), int(hi.split(".")[1]) + 1)]


def test_releases_match_reference(reference, kb):
    for ref in reference["torch_releases"]:
        rel = kb.release(ref["version"])
        assert rel is not None, ref["version"]
        assert rel.patches == tuple(p.split(" ")[0] for p in ref["patch_releases"])
        ours = set(rel.python) - set(rel.python_only_on)
        assert ours == set(_range(ref["python"])), rel.torch
        # "cu126 (legacy)" counts; "cu134? (... unverified)" is deliberately not listed
        ref_cuda = {v.split(" ")[0] for v in ref["cuda_variants"] if re.match(r"cu\d+( |$)", v)}
        our_cuda = {v for v in rel.variants["linux-x86_64"] if v.startswith("cu")}
        assert our_cuda == ref_cuda, rel.torch
        if any(v.startswith("xpu") for v in ref["cuda_variants"]):
            assert "xpu" in rel.variants["linux-x86_64"], rel.torch
        for patch, tv in ref["torchvision"].items():
            if patch in rel.torchvision:
                # the reference writes "0.15.1 (pip; conda used 0.15.0)" or a sentence naming it
                assert re.search(rf"(^|\s){re.escape(rel.torchvision[patch])}(\s|$)", tv), (patch, tv)
        default = ref["pypi_default_linux_x86_64_cuda"]
        if re.match(r"\d+\.\d+", default) and "linux-x86_64" in rel.pypi_default:
            major, minor = re.match(r"(\d+)\.(\d+)", default).groups()
            assert rel.pypi_default["linux-x86_64"] == f"cu{major}{minor}", rel.torch


def test_linux_arch_lists_match_reference(reference, kb):
    for variant, entries in reference["cuda_variant_archs"].items():
        if variant.startswith("_") or not isinstance(entries, list):
            continue
        for entry in entries:
            first = re.match(r"(\d+\.\d+)", entry["torch"]).group(1)
            archs = kb.archs_for(variant, first, "linux-x86_64")
            assert archs == ArchList.parse(entry["linux_x86_64"]) or \
                (archs.cubins, archs.ptx) == (ArchList.parse(entry["linux_x86_64"]).cubins,
                                              ArchList.parse(entry["linux_x86_64"]).ptx), (variant, first)
