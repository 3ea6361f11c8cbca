"""What every finding a test produces must read like: title, cause and each fix step present in
both languages, no placeholder left unfilled, no raw message key shown."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def assert_renders(findings) -> None:
    """Title, cause and every step exist in both languages with every placeholder filled."""
    for f in findings:
        for lang in ("en", "ko"):
            texts = [f.title(lang), f.cause(lang), *f.steps(lang)]
            for text in texts:
                assert text and not text.startswith("finding."), (f.id, f.variant, lang, text)
                assert not _PLACEHOLDER.search(text), (f.id, f.variant, lang, text)
