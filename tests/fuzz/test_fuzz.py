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


def test_an_endless_device_is_refused_and_a_big_file_is_capped(tmp_path):
    """/dev/zero has no end: it is not a regular file, so it is refused before a byte is read (issue 24);
    a regular file bigger than the cap is read up to the cap (+1 byte) and says it cut."""
    from wizard.core.base.user_files import NotARegularFile

    if os.path.exists("/dev/zero"):
        with pytest.raises(NotARegularFile):
            read_user_text("/dev/zero")
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (MAX_USER_BYTES + 10))
    read = read_user_text(big)
    assert read.truncated and len(read.text) <= MAX_USER_BYTES
