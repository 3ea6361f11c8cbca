"""Which machines a bundle serves, from its wheels' tags (real wheel file names of PyTorch's index)."""

from __future__ import annotations

from wizard.core.install.bundle import BundleFile, Manifest, platforms_served, pythons_served, serves

LINUX_312 = ["cp312-cp312-manylinux_2_28_x86_64", "cp312-cp312-linux_x86_64", "py3-none-any", "cp312-abi3-linux_x86_64"]
WIN_312 = ["cp312-cp312-win_amd64", "py3-none-any"]


def _manifest(*names: str) -> Manifest:
    return Manifest([BundleFile(n, "0" * 64, 1) for n in names], ["torch==2.6.0+cu126"])


def test_a_linux_cuda_bundle_serves_linux_python_312_only():
    m = _manifest("torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
                  "torchvision-0.21.0+cu126-cp312-cp312-linux_x86_64.whl", "typing_extensions-4.12.2-py3-none-any.whl")
    assert pythons_served(m) == ["cp312"]
    assert serves(m, LINUX_312) == (True, [])
    ok, misfits = serves(m, WIN_312)
    assert not ok and misfits[0].startswith("torch-2.6.0")
    assert platforms_served(m) == ["linux_x86_64", "manylinux_2_28_x86_64"]  # no tag in common: both named


def test_pure_python_bundles_serve_any_machine():
    m = _manifest("typing_extensions-4.12.2-py3-none-any.whl", "filelock-3.16.1-py3-none-any.whl")
    assert platforms_served(m) == [] and pythons_served(m) == []
    assert serves(m, WIN_312)[0] and serves(m, LINUX_312)[0]


def test_one_platform_named_when_the_wheels_agree():
    m = _manifest("torch-2.6.0+cu126-cp312-cp312-win_amd64.whl", "torchvision-0.21.0+cu126-cp312-cp312-win_amd64.whl")
    assert platforms_served(m) == ["win_amd64"] and pythons_served(m) == ["cp312"]
    assert not serves(m, LINUX_312)[0]
