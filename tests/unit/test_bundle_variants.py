"""Which build of a several-build bundle a machine installs: the recommender's driver bar."""

from __future__ import annotations

import pytest

from wizard.core.install.bundle_variants import VariantError, choose_variant, parse_variants
from wizard.core.recommend import compat


def _choose(variants, has_nvidia, driver):
    return choose_variant(variants, has_nvidia, driver, "linux", "2.13.0", compat.load().driver_bars)


def test_parse_variants_keeps_order_and_drops_repeats():
    assert parse_variants(" cpu, CU126,cu128,cpu ") == ["cpu", "cu126", "cu128"]
    assert parse_variants(None) == []


def test_no_nvidia_gpu_takes_the_cpu_build():
    assert _choose(["cu126", "cpu", "cu128"], False, None) == "cpu"
    with pytest.raises(VariantError):
        _choose(["cu126"], False, None)


def test_a_new_driver_takes_the_newest_cuda_build_it_can_start():
    bars = compat.load().driver_bars
    need_128 = bars("cu128", "linux", "2.13.0").minimum
    assert _choose(["cpu", "cu126", "cu128"], True, "580.95.05") == "cu128"
    assert _choose(["cpu", "cu126"], True, need_128) == "cu126"


def test_a_driver_too_old_for_every_cuda_build_falls_back_to_cpu_or_says_so():
    assert _choose(["cpu", "cu126", "cu128"], True, "390.12") == "cpu"
    with pytest.raises(VariantError) as info:
        _choose(["cu126", "cu128"], True, "390.12")
    assert "390.12" in info.value.text("en")
