"""Issue 15 item 11: inputs the command line cannot use, each reproduced the way it was found.

An index address without ``https://`` (a traceback from requests; pip would read it as a folder),
doctor's "PCIe link: Genn/a xn/a", ``verify --python /bin/false`` blamed on "a crash while
loading PyTorch", a 3,999-byte path, and ``compat.parse`` raising TypeError/AttributeError on
a table with a value of the wrong type.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.core.base.resources import load_json
from wizard.core.machine.models import GpuInfo
from wizard.core.recommend.compat import CompatDataError, parse
from wizard.core.recommend.wheel_index import STATUS_BAD_URL, WheelIndex, index_url_problem

NO_SCHEME = "download.pytorch.org/whl/cu126"


# --- index addresses ------------------------------------------------------------------------------


@pytest.mark.parametrize("url, problem", [(NO_SCHEME, "recommend.index.bad_url.scheme"),
                                          ("ftp://mirror/whl", "recommend.index.bad_url.scheme"),
                                          ("https://", "recommend.index.bad_url.host"),
                                          ("https://download.pytorch.org/whl/cu126", None),
                                          ("http://127.0.0.1:8080/simple", None),
                                          ("file:///media/usb/pytorch-mirror/simple", None),  # a copied mirror
                                          ("file://", "recommend.index.bad_url.host")])
def test_index_url_problem(url, problem):
    assert index_url_problem(url) == problem


def test_wheel_check_of_a_scheme_less_index_is_a_clear_answer(tmp_path):
    check = WheelIndex(cache_dir=tmp_path).check(NO_SCHEME, "torch", "2.7.1")
    assert check.status == STATUS_BAD_URL
    assert "https://" in check.message("en") and NO_SCHEME in check.message("en")


def test_install_refuses_a_scheme_less_index_before_touching_anything(tmp_path):
    venv = tmp_path / "venv"
    out = run_cli("install", "--venv", str(venv), "--index-url", NO_SCHEME, "--plan-only", data_dir=tmp_path / "data")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "is not a web address" in out.stderr and "https://" in out.stderr
    assert not venv.exists()


# --- paths no file system holds ---------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["one long name", "many short names"])
def test_install_refuses_a_3999_byte_path_in_one_line(shape, tmp_path):
    tail = "b" * 3999 if shape == "one long name" else "/".join(["b" * 9] * 400)
    path = str(tmp_path / tail)[:max(3999, len(str(tmp_path)) + 10)]
    out = run_cli("install", "--venv", path, "--plan-only", data_dir=tmp_path / "data")
    assert out.returncode == 2, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "CalledProcessError" not in out.stderr
    assert "Choose a shorter path" in out.stderr
    assert len(out.stderr) < 500  # the start of the path, not all of it


# --- verify with something that is not Python --------------------------------------------------------


@pytest.mark.skipif(not Path("/bin/false").exists(), reason="needs /bin/false")
def test_verify_with_bin_false_says_it_is_not_python(tmp_path):
    out = run_cli("verify", "--python", "/bin/false", data_dir=tmp_path / "data")
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert "not a working Python interpreter" in out.stdout
    assert "crash" not in out.stdout.lower(), out.stdout


# --- doctor's PCIe line ------------------------------------------------------------------------------


def test_pcie_text_without_a_link_is_plain_na():
    assert GpuInfo(index=0).pcie_text("n/a") == "n/a"
    assert GpuInfo(index=0, pcie_gen_current=3, pcie_width_current=16, pcie_gen_max=4,
                   pcie_width_max=16).pcie_text("n/a") == "Gen3 x16 (max Gen4 x16)"
    assert GpuInfo(index=0, pcie_gen_max=4, pcie_width_max=16).pcie_text("n/a") == "n/a (max Gen4 x16)"


def test_doctor_text_never_glues_na_into_the_link(tmp_path):
    smi = tmp_path / "smi.csv"
    smi.write_text("index, name, memory.total [MiB], driver_version\n0, NVIDIA GeForce RTX 3060, 12288 MiB, 560.35\n",
                   encoding="utf-8")
    out = run_cli("doctor", "--nvidia-smi-file", str(smi), data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    assert "RTX 3060" in out.stdout
    assert "Genn/a" not in out.stdout and "xn/a" not in out.stdout, out.stdout


# --- compat.parse on a table with values of the wrong type ----------------------------------------


def _paths(node, prefix=()):
    yield prefix
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, prefix + (key,))


def test_compat_parse_raises_only_its_own_error_on_mutated_tables():
    """1,500 single mutations of the bundled table (a node replaced by another type, or a key
    dropped): each parses or raises CompatDataError. Before the fix 10 % raised TypeError or
    AttributeError (a list where a variant name goes, ``true`` where an object goes)."""
    base = load_json("compat.json")
    places = [p for p in _paths(base) if p]
    rng = random.Random(15)
    replacements = [None, 7, 1.5, "x", [], {}, [1, 2], {"a": 1}, True, "99.99", -1]
    escaped = []
    for _ in range(1500):
        doc = copy.deepcopy(base)
        where = rng.choice(places)
        node = doc
        for key in where[:-1]:
            node = node[key]
        if isinstance(node, dict) and rng.random() < 0.2:
            del node[where[-1]]
        else:
            node[where[-1]] = rng.choice(replacements)
        try:
            parse(doc)
        except CompatDataError:
            pass
        except Exception as exc:  # noqa: BLE001 - exactly what the test looks for
            escaped.append(f"{where}: {type(exc).__name__}: {exc}")
    assert not escaped, escaped[:5]
