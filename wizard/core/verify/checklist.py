"""Verification: the probe's events (``wizard/probe/verify.py``) → a checklist with causes and fixes.

Two kinds of checks end up in :attr:`VerifyReport.checks`:

* checks the probe ran in the target environment (a kernel launch, a matmul against a float64
  reference, an AMP training step, cuDNN, NCCL, MPS/XPU, TensorFlow, collect_env), taken as the
  probe reported them;
* checks made here from the probe's facts, optionally cross-checked with what detection saw
  outside that environment (:class:`~wizard.core.machine.models.Detection`): a CPU-only build on a
  machine with an NVIDIA GPU, a driver too old for the wheel's CUDA, each GPU's compute
  capability against ``torch.cuda.get_arch_list()`` (the "no kernel image" trap, which
  ``torch.cuda.is_available()`` does not catch), device counts, why CUDA is unavailable.

Every rule is a small function of a :class:`Context`; the report re-evaluates them whenever an
event arrives, so the GUI can show the checklist filling in while the probe runs.

Statuses: ``pass``; ``warn`` (works, but something to know: a driver one minor version behind,
a CPU-only build on a machine without an NVIDIA GPU); ``fail`` (with a cause and a fix);
``skip`` (does not apply here, with the reason as its detail).

Layout: :mod:`wizard.core.verify.checks` holds one check and its statuses,
:mod:`wizard.core.verify.rules` the rules and their :class:`~wizard.core.verify.rules.Context`;
this module holds the report that feeds events to them, and the probe run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from wizard.core.base.i18n import catalogue, t
from wizard.core.verify.checks import STATUSES, Check, worst
from wizard.core.verify.probe_runner import CancelLike, Event, ProbeOutcome, run_probe
from wizard.core.verify.rules import Context, evaluate

if TYPE_CHECKING:
    from wizard.core.machine.models import Detection

SCHEMA = "gpu-setup-wizard/verify@1.0"


# ------------------------------------------------------------------------------------------
# The report
# ------------------------------------------------------------------------------------------
@dataclass
class VerifyReport:
    """The checklist, the versions and devices, and collect_env's text for one environment.

    Build it at once with :meth:`from_events` / :meth:`from_outcome`, or incrementally
    (GUI): ``report = VerifyReport(detection=d)``, ``report.feed(event)`` per event, then
    ``report.finish(outcome)``; :attr:`checks` is current after every call.
    """

    detection: Detection | None = None
    python_exe: str | None = None
    events: list[Event] = field(default_factory=list)
    outcome: ProbeOutcome | None = None
    final: bool = False
    _checks: list[Check] | None = field(default=None, repr=False)

    # ---- building ----------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[Event], detection: Detection | None = None,
                    python_exe: str | None = None, final: bool = True) -> "VerifyReport":
        report = cls(detection=detection, python_exe=python_exe)
        for e in events:
            report.feed(e)
        report.final = final
        return report

    @classmethod
    def from_outcome(cls, outcome: ProbeOutcome, detection: Detection | None = None,
                     python_exe: str | None = None) -> "VerifyReport":
        report = cls.from_events(outcome.events, detection, python_exe or (outcome.argv[0] if outcome.argv else None))
        report.finish(outcome)
        return report

    def feed(self, event: Event) -> list[Check]:
        """Add one probe event; returns the checks it changed (for a live checklist)."""
        before = {c.key: c for c in self.checks}
        self.events.append(event)
        self._checks = None
        return [c for c in self.checks if before.get(c.key) != c]

    def finish(self, outcome: ProbeOutcome | None) -> None:
        self.outcome = outcome
        self.final = True
        self._checks = None

    # ---- views of the events -----------------------------------------------------------
    @property
    def facts(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for e in self.events:
            if e.get("event") == "result" and e.get("type") == "facts" and isinstance(e.get("section"), str):
                merged[e["section"]] = e.get("data")
        return merged

    @property
    def probe_checks(self) -> list[Check]:
        out = []
        for e in self.events:
            if e.get("event") == "result" and e.get("type") == "check":
                c = Check.from_event(e)
                if c is not None:
                    out.append(c)
        return out

    @property
    def errors(self) -> list[Event]:
        return [e for e in self.events if e.get("event") == "error"]

    @property
    def complete(self) -> bool:
        """The probe finished every check (not stopped, crashed or timed out on the way)."""
        return self.final and (self.outcome is None or self.outcome.completed)

    @property
    def collect_env(self) -> dict[str, Any] | None:
        for e in reversed(self.events):
            if e.get("event") == "result" and e.get("type") == "collect_env":
                return e
        return None

    @property
    def collect_env_text(self) -> str | None:
        ce = self.collect_env
        return ce.get("text") if ce else None

    def context(self) -> Context:
        return Context(self.facts, self.probe_checks, self.errors, self.detection, self.outcome, self.final)

    @property
    def checks(self) -> list[Check]:
        if self._checks is None:
            self._checks = evaluate(self.context())
        return self._checks

    def check(self, cid: str, device: int | None = None) -> Check | None:
        for c in self.checks:
            if c.id == cid and (device is None or c.device == device):
                return c
        return None

    @property
    def status(self) -> str:
        return worst(c.status for c in self.checks)

    @property
    def ok(self) -> bool:
        """No check failed (warnings allowed)."""
        return self.final and all(c.status != "fail" for c in self.checks)

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STATUSES}
        for c in self.checks:
            out[c.status] = out.get(c.status, 0) + 1
        return out

    @property
    def versions(self) -> dict[str, Any]:
        f = self.facts
        tv: dict[str, Any] = f["torch"] if isinstance(f.get("torch"), dict) else {}
        cuda: dict[str, Any] = f["cuda"] if isinstance(f.get("cuda"), dict) else {}
        py: dict[str, Any] = f["python"] if isinstance(f.get("python"), dict) else {}
        driver_cuda, source = self.context().driver_cuda()
        nccl = cuda.get("nccl")
        return {
            "python": py.get("version"), "torch": tv.get("version"), "cuda": tv.get("cuda"), "hip": tv.get("hip"),
            "cudnn": tv.get("cudnn"), "nccl": nccl if isinstance(nccl, str) else None,
            "driver_cuda": driver_cuda, "driver_cuda_source": source,
            "driver": self.detection.nvidia.driver_version if self.detection is not None else None,
            "arch_list": cuda.get("arch_list"), "num_threads": tv.get("num_threads"),
        }

    @property
    def devices(self) -> list[dict[str, Any]]:
        return self.context().devices

    @property
    def tensorflow(self) -> dict[str, Any] | None:
        c = self.check("tensorflow")
        return c.evidence if c else None

    # ---- output ------------------------------------------------------------------------
    def to_json(self, lang: str | None) -> dict[str, Any]:
        ce = self.collect_env
        return {
            "schema": SCHEMA,
            "python": self.python_exe,
            "status": self.status,
            "ok": self.ok,
            "complete": self.complete,
            "counts": self.counts(),
            "checks": [c.to_json(lang) for c in self.checks],
            "versions": self.versions,
            "devices": self.devices,
            "collect_env": None if ce is None else {"text": ce.get("text"), "returncode": ce.get("returncode"),
                                                    "timed_out": ce.get("timed_out")},
            "facts": {k: v for k, v in self.facts.items()},
            "probe": self.outcome.to_json() if self.outcome is not None else None,
        }

    def to_text(self, lang: str | None) -> str:
        """The checklist as plain text (CLI without --json, "copy diagnostics")."""
        marks = {"pass": "[ OK ]", "warn": "[WARN]", "fail": "[FAIL]", "skip": "[SKIP]"}
        lines = [t("verify.report.heading", lang, python=self.python_exe or "?")]
        for c in self.checks:
            lines.append(f"{marks.get(c.status, '[ ?? ]')} {c.title(lang)}: {c.detail_text(lang)}")
            if c.status in ("fail", "warn"):
                if c.cause:
                    lines.append("       " + t("verify.report.cause", lang, text=c.cause_text(lang)))
                if c.fix:
                    lines.append("       " + t("verify.report.fix", lang, text=c.fix_text(lang)))
        counts = self.counts()
        lines.append(t("verify.report.counts", lang, passed=counts["pass"], warned=counts["warn"],
                       failed=counts["fail"], skipped=counts["skip"]))
        return "\n".join(lines)

    def diagnostics(self, lang: str | None) -> str:
        """Everything a teaching assistant needs, pasteable: checklist, versions, collect_env."""
        parts = [self.to_text(lang), "", t("verify.report.versions", lang)]
        for k, v in self.versions.items():
            if v not in (None, [], ""):
                parts.append(f"  {k}: {' '.join(v) if isinstance(v, list) else v}")
        text = self.collect_env_text
        if text:
            parts += ["", "python -m torch.utils.collect_env", "```", text.rstrip(), "```"]
        if self.outcome is not None and self.outcome.failure_kind():
            parts += ["", "stderr:", self.outcome.stderr_tail[-3000:]]
        return "\n".join(parts)


def progress_text(event: Event, lang: str | None) -> str:
    """A progress event as a line for the status bar ("Importing PyTorch ...")."""
    step = str(event.get("step") or "")
    key = f"verify.step.{step}"
    return t(key, lang) if key in catalogue() else step


def verify_args(skip: Sequence[str] = ()) -> list[str]:
    """The probe's command-line arguments."""
    return ["--skip", ",".join(skip)] if skip else []


def run_verify(python_exe: str, detection: Detection | None = None, *, timeout: float = 300.0,
               on_event: Callable[[Event], None] | None = None, cancel: CancelLike = None,
               skip: Sequence[str] = ()) -> VerifyReport:
    """Run the verification probe in ``python_exe`` and build the report (CLI entry point).
    Never raises for the probe's sake: a probe that cannot start, crashes or times out is
    the report's ``probe`` check."""
    outcome = run_probe(python_exe, "verify.py", verify_args(skip), timeout=timeout, on_event=on_event, cancel=cancel)
    return VerifyReport.from_outcome(outcome, detection, python_exe)
