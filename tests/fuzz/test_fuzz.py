"""The fuzz targets (tests/fuzz/targets.py) with the suite's fixed example budget.

``GSW_FUZZ_PROFILE`` picks the Hypothesis profile: ``ci`` (the default, and what scripts/test sets)
is derandomised with a fixed number of examples per reader; ``dev`` the same budget with fresh
inputs each run; ``scripts/fuzz --minutes N`` runs the same targets for a long time.
Course profiles have no reader yet, so they have no target.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings

from tests.fuzz.targets import PROFILE, TARGETS
from wizard.core.base.user_input import MAX_USER_BYTES, read_user_text


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_reader_gives_a_result_or_its_own_refusal(name):
    target = TARGETS[name]

    @settings(settings.get_profile(PROFILE))
    @given(target.inputs())
    def check(value):
        target.run(value)

    check()


def test_the_cap_holds_for_an_endless_device():
    """/dev/zero has no end and st_size 0: the real reader takes the cap (+1 byte) and says it cut."""
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    read = read_user_text("/dev/zero")
    assert read.truncated and len(read.text) <= MAX_USER_BYTES
