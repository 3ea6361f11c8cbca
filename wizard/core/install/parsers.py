"""Output parsers: the lines a tool prints → the progress of its step (pip, uv, conda)."""

from __future__ import annotations

from wizard.core.base.i18n import msg
from wizard.core.install.env_commands import CONDA_PHASES
from wizard.core.install.job import OutputParser, StepProgress


class PrefixParser(OutputParser):
    """A tool whose phases show as line prefixes: ``PHASES`` is (prefix, fraction, message
    key) in the order they are checked; the first prefix a line starts with reports."""

    PHASES: tuple[tuple[str, float, str], ...] = ()

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        for prefix, fraction, key in self.PHASES:
            if s.startswith(prefix):
                return StepProgress(self.step_id, fraction, msg(key))
        return None


class PipInstallParser(PrefixParser):
    """pip install: 'Processing <file>' per package, then 'Installing collected packages',
    then 'Successfully installed'. ``expected``: how many packages the plan installs."""

    PHASES = (("Installing collected packages:", 0.35, "install.progress.installing_files"),
              ("Successfully installed", 1.0, "install.progress.installed"))

    def __init__(self, step_id: str, expected: int) -> None:
        super().__init__(step_id)
        self.expected = max(1, expected)
        self.processed = 0

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Processing ") or s.startswith("Collecting "):
            self.processed += 1
            frac = 0.3 * min(1.0, self.processed / self.expected)
            name = s.split(None, 1)[1].rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
            return StepProgress(self.step_id, frac, msg("install.progress.preparing", name=name))
        if s.startswith("Attempting uninstall:"):
            return StepProgress(self.step_id, 0.35, msg("install.progress.replacing", name=s.split(":", 1)[1].strip()))
        return super().parse(line)


class UvInstallParser(PrefixParser):
    """uv pip install: 'Resolved N packages', 'Prepared N packages', 'Installed N packages'."""

    PHASES = (("Resolved ", 0.1, "install.progress.resolved"),
              ("Prepared ", 0.6, "install.progress.installing_files"),
              ("Installed ", 1.0, "install.progress.installed"))


class ResolveParser(OutputParser):
    """pip's dry run: a 'Collecting X' line per distribution it considers."""

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Collecting "):
            return StepProgress(self.step_id, None, msg("install.progress.resolving", name=s.split(None, 1)[1]))
        return None


class UvResolveParser(ResolveParser):
    """``uv pip compile -v``: its ``DEBUG`` lines name every URL it read (for the plan cache,
    :class:`~wizard.core.install.plan_cache.ConsultedUrls`); they stay out of the log and of
    the failure's tail, which keep uv's own words."""

    def __init__(self, step_id: str) -> None:
        super().__init__(step_id)
        from wizard.core.install.plan_cache import ConsultedUrls

        self.urls = ConsultedUrls()

    def feed_line(self, line: str) -> StepProgress | None:
        if _is_debug(line):
            self.urls.feed(line)
            return None
        return super().feed_line(line)

    def shows(self, line: str) -> bool:
        return not _is_debug(line)


def _is_debug(line: str) -> bool:
    return line.lstrip().startswith(("DEBUG ", "TRACE "))


class CondaCreateParser(OutputParser):
    def parse(self, line: str) -> StepProgress | None:
        for phase, frac in CONDA_PHASES:
            if phase in line:
                return StepProgress(self.step_id, frac, msg("install.progress.conda_phase", phase=phase))
        return None


class UvPythonParser(OutputParser):
    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Installed Python") or s.startswith("Installed "):
            return StepProgress(self.step_id, 1.0, msg("install.progress.python_done", detail=s))
        if s.startswith("Downloading") or s.startswith("Searching"):
            return StepProgress(self.step_id, None, msg("install.progress.python_download", detail=s))
        return None


__all__ = ["CondaCreateParser", "PipInstallParser", "PrefixParser", "ResolveParser", "UvInstallParser", "UvPythonParser",
           "UvResolveParser"]
