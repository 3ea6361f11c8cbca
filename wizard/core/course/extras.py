"""The course's extra packages, checked in the student's interpreter: one row per package.

A value of its own module (not of the application layer's course use cases) so that the session,
which holds these rows, need not import the use cases that fill it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wizard.core.base.i18n import t


@dataclass(frozen=True)
class ExtraCheck:
    """One row of the course-packages check: the package, and its version or why it fails."""

    requirement: str
    module: str
    version: str | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None

    def text(self, lang: str | None, python_exe: str) -> str:
        if self.ok:
            return t("course.verify.ok", lang, package=self.requirement, version=self.version)
        return t("course.verify.missing", lang, package=self.requirement, error=self.error,
                 fix=f'"{python_exe}" -m pip install "{self.requirement}"')

    def to_json(self) -> dict[str, Any]:
        return {"requirement": self.requirement, "module": self.module, "version": self.version, "error": self.error,
                "ok": self.ok}


__all__ = ["ExtraCheck"]
