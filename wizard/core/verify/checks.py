"""One line of the verification checklist (:class:`Check`), its statuses and reading order.

Why a module of its own: a check comes from two places — the probe reports it, or a rule in
:mod:`wizard.core.verify.rules` judges it from the probe's facts — and the report, the GUI's
live checklist and the CLI all read it the same way: a status, and i18n ids for its title,
detail, cause and fix (``verify.check.<id>.title``, ``verify.detail.<detail>``, ...).

Statuses: ``pass``; ``warn`` (works, but something to know); ``fail`` (with a cause and a fix);
``skip`` (does not apply here, with the reason as its detail).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from wizard.core.base.i18n import catalogue, t
from wizard.core.verify.probe_runner import Event

STATUSES = ("pass", "warn", "fail", "skip")
_RANK = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}

# Reading order of the checklist; ids not listed (a newer probe's) go last.
ORDER = (
    "probe", "python", "torch.import", "torch.variant", "torch.resolver", "cuda.build", "cuda.driver",
    "cuda.available", "cuda.device_count",
    "cuda.device", "cuda.arch", "cuda.kernel", "cuda.matmul.fp32", "cuda.matmul.fp16", "cuda.matmul.bf16",
    "cuda.memory", "cuda.amp_step", "cudnn", "nccl", "mps", "mps.matmul", "xpu", "xpu.matmul",
    "cpu.matmul", "cpu.train_step", "torchvision", "torchaudio", "model.tiny_bert", "tensorflow", "tensorflow.route",
    "tensorflow.memory",
    "collect_env",
)

# failure-modes.json ids, so a report links a check to the catalogue of known failures.
FINDING_OF_CAUSE = {
    "cpu_only_build": "cpu-only-torch-installed",
    "cpu_only_no_gpu": "cpu-only-torch-installed",
    "driver_too_old": "driver-too-old-for-torch-cuda",
    "driver_minor_older": "driver-too-old-for-torch-cuda",
    "no_kernel_image": "no-kernel-image-sm-incompatible",
    "no_driver": "no-nvidia-driver",
    "visible_devices_hidden": "cuda-visible-devices-hides-gpus",
    "device_count_mismatch": "cuda-visible-devices-hides-gpus",
    "out_of_memory": "cuda-out-of-memory",
    "low_free_memory": "cuda-out-of-memory",
}


@dataclass
class Check:
    """One line of the checklist. Message ids: ``verify.check.<id>.title``,
    ``verify.detail.<detail>``, ``verify.cause.<cause>``, ``verify.fix.<fix>``."""

    id: str
    status: str
    device: int | None = None
    detail: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    cause: str | None = None
    fix: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    source: str = "probe"  # "probe": the probe ran it; "rule": judged here from facts

    @property
    def key(self) -> tuple[str, int | None]:
        return self.id, self.device

    @property
    def finding(self) -> str | None:
        return FINDING_OF_CAUSE.get(self.cause or "")

    def _t(self, key: str, lang: str | None) -> str:
        return t(key, lang, **{k: ("" if v is None else v) for k, v in self.params.items()})

    def title(self, lang: str | None) -> str:
        key = f"verify.check.{self.id}.title"
        if key not in catalogue():
            return self.id
        text = t(key, lang)
        return text if self.device is None else f"{text} (GPU {self.device})"

    def detail_text(self, lang: str | None) -> str:
        if self.detail:
            return self._t(f"verify.detail.{self.detail}", lang)
        message = self.evidence.get("message") if isinstance(self.evidence, dict) else None
        if self.status == "fail" and message:
            return str(message).strip().splitlines()[0][:300]  # raw evidence: the exception's first line
        if self.cause:
            return self.cause_text(lang) or ""
        return t(f"verify.status.{self.status}", lang)

    def cause_text(self, lang: str | None) -> str | None:
        return self._t(f"verify.cause.{self.cause}", lang) if self.cause else None

    def fix_text(self, lang: str | None) -> str | None:
        return self._t(f"verify.fix.{self.fix}", lang) if self.fix else None

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {
            "id": self.id, "status": self.status, "detail": self.detail_text(lang), "device": self.device,
            "title": self.title(lang), "cause": self.cause_text(lang), "fix": self.fix_text(lang),
            "cause_id": self.cause, "fix_id": self.fix, "finding": self.finding, "source": self.source,
            "params": self.params, "evidence": self.evidence,
        }

    @classmethod
    def from_event(cls, event: Event) -> "Check | None":
        cid = event.get("id")
        status = event.get("status")
        if not isinstance(cid, str) or status not in STATUSES:
            return None
        device = event.get("device")
        params = event.get("params")
        evidence = event.get("evidence")
        return cls(id=cid, status=status, device=device if isinstance(device, int) else None,
                   detail=_str_or_none(event.get("detail")), params=params if isinstance(params, dict) else {},
                   cause=_str_or_none(event.get("cause")), fix=_str_or_none(event.get("fix")),
                   evidence=evidence if isinstance(evidence, dict) else {}, source="probe")


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def worst(statuses: Iterable[str]) -> str:
    """The overall status: fail > warn > pass > skip (all skipped → skip)."""
    best = "skip"
    for s in statuses:
        if _RANK.get(s, 0) > _RANK[best]:
            best = s
    return best
