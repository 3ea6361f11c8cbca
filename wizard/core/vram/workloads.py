"""The course's lessons judged for a GPU: runs here, needs Colab (T4), or needs a cloud GPU.

Why: the student's real question is not "how many bytes" but "which lessons can I do on this
machine, and for which do I open Colab or rent an A100?". Each workload in
``resources/workloads.json`` is a lesson with its model and settings; :func:`judge_workloads`
finds the largest batch that fits here and, when the lesson does not fit, the first remote GPU
(Colab T4 16 GB, then A100 40 GB, then an 80 GB A100/H100) where it does. The report's
"이 환경으로 가능한 강의 / Colab/클라우드가 필요한 강의" lines come from :func:`report_lines`.

The course's own tier table and batch hints are kept beside the computed numbers
(:func:`course_tiers`, :func:`batch_hint_rows`) so a teaching assistant sees both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wizard.core.base.i18n import t
from wizard.core.base.resources import load_json
from wizard.core.vram.estimate import Estimate, estimate
from wizard.core.vram.memory import CUDA_CONTEXT_RESERVE_BYTES, usable_vram_bytes
from wizard.core.vram.units import GIB, MIB, format_gib

VERDICT_RUNS_HERE = "runs_here"
VERDICT_NEEDS_COLAB = "needs_colab"
VERDICT_NEEDS_CLOUD = "needs_cloud"
VERDICT_TOO_BIG = "too_big"
VERDICT_RUNS_ON_CPU = "runs_on_cpu"  # a small lesson with no GPU to spare: this CPU trains it
VERDICTS = (VERDICT_RUNS_HERE, VERDICT_RUNS_ON_CPU, VERDICT_NEEDS_COLAB, VERDICT_NEEDS_CLOUD, VERDICT_TOO_BIG)
# A lesson marked ``cpu_ok`` in workloads.json runs on the CPU when its estimate at the smallest
# sensible batch takes at most this share of the machine's RAM (the rest is the OS, the browser,
# the notebook and the data loader).
CPU_RAM_SHARE = 0.5


@dataclass(frozen=True)
class Target:
    """A remote GPU a student can turn to, with the memory its nvidia-smi reports."""

    id: str
    vram_mib: int
    nominal_gb: int
    source: str = ""

    @property
    def vram_bytes(self) -> int:
        return self.vram_mib * MIB

    def label(self, lang: str | None) -> str:
        return t(f"vram.target.{self.id}", lang)


@dataclass(frozen=True)
class Workload:
    """One course lesson: a model and the settings it is trained or run with."""

    id: str
    model: str
    mode: str
    precision: str
    batch_hint: tuple[int, int]
    min_batch: int
    max_batch: int
    optimizer: str = "adamw"
    context: int | None = None
    image_size: int | None = None
    lora_rank: int = 16
    lora_targets: str = "qv"
    gradient_checkpointing: bool = False
    course_tier: str | None = None
    cpu_ok: bool = False  # small enough to train on a laptop CPU in lesson time (MNIST, a small CNN)

    def title(self, lang: str | None) -> str:
        return t(f"vram.workload.{self.id}.title", lang)

    def setup(self, lang: str | None) -> str:
        return t(f"vram.workload.{self.id}.setup", lang)

    def estimate(self, batch: int, vram_total_bytes: int | None = None, vram_used_bytes: int = 0,
                 context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> Estimate:
        return estimate(self.model, mode=self.mode, precision=self.precision, batch=batch,
                        context=self.context, image_size=self.image_size, optimizer=self.optimizer,
                        gradient_checkpointing=self.gradient_checkpointing, lora_rank=self.lora_rank,
                        lora_targets=self.lora_targets, vram_total_bytes=vram_total_bytes,
                        vram_used_bytes=vram_used_bytes, context_reserve_bytes=context_reserve_bytes)


@lru_cache(maxsize=1)
def _doc() -> dict[str, Any]:
    return load_json("workloads.json")


def load_workloads() -> list[Workload]:
    """The course workloads, small lessons first."""
    out = []
    for w in _doc()["workloads"]:
        out.append(Workload(
            id=w["id"], model=w["model"], mode=w["mode"], precision=w["precision"],
            batch_hint=(int(w["batch_hint"][0]), int(w["batch_hint"][1])),
            min_batch=int(w["min_batch"]), max_batch=int(w["max_batch"]),
            optimizer=w.get("optimizer", "adamw"), context=w.get("context"), image_size=w.get("image_size"),
            lora_rank=int(w.get("lora_rank", 16)), lora_targets=w.get("lora_targets", "qv"),
            gradient_checkpointing=bool(w.get("gradient_checkpointing", False)),
            course_tier=w.get("course_tier"), cpu_ok=bool(w.get("cpu_ok", False)),
        ))
    return out


def get_workload(workload_id: str) -> Workload:
    for w in load_workloads():
        if w.id == workload_id:
            return w
    raise KeyError(workload_id)


def targets() -> list[Target]:
    """Colab T4, cloud A100 40 GB, cloud 80 GB (A100/H100): the order a student escalates in."""
    return [Target(id=x["id"], vram_mib=int(x["vram_mib"]), nominal_gb=int(x["nominal_gb"]),
                   source=x.get("source", "")) for x in _doc()["targets"]]


def max_batch_that_fits(workload: Workload, usable_bytes: int) -> int:
    """The largest batch (≤ workload.max_batch) whose estimate fits ``usable_bytes``; 0 if none.

    Binary search: the estimate never shrinks when the batch grows (tests check this).
    """
    def fits(b: int) -> bool:
        return workload.estimate(b).total_bytes <= usable_bytes

    if usable_bytes <= 0 or not fits(1):
        return 0
    lo, hi = 1, workload.max_batch
    if fits(hi):
        return hi
    while hi - lo > 1:  # invariant: fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class WorkloadJudgment:
    """A lesson's verdict for one GPU, with the batch that fits here and where it runs."""

    workload: Workload
    verdict: str
    batch_here: int  # largest batch that fits this GPU (0: not even batch 1)
    target: Target | None  # where it runs when not here (None for runs_here and too_big)
    batch_target: int  # largest batch on the target (0 when there is none)
    estimate: Estimate  # at the batch that runs (here, else on the target, else min_batch)
    min_batch_bytes: int  # total at the lesson's smallest sensible batch
    what_if: bool = False  # judged for a card the student picked, not this machine's GPU: worded so

    @property
    def runs_here(self) -> bool:
        """Runs on this machine: on its GPU, or (a small lesson) on its CPU."""
        return self.verdict in (VERDICT_RUNS_HERE, VERDICT_RUNS_ON_CPU)

    def title(self, lang: str | None) -> str:
        return self.workload.title(lang)

    def text(self, lang: str | None) -> str:
        """The verdict in one line: '이 GPU에서 실행 가능 (배치 최대 64)'."""
        if self.verdict == VERDICT_RUNS_HERE:
            key = "vram.verdict.runs_on_what_if" if self.what_if else "vram.verdict.runs_here"
            return t(key, lang, batch=self.batch_here)
        if self.verdict == VERDICT_RUNS_ON_CPU:
            return t("vram.verdict.runs_on_cpu", lang, batch=self.batch_here)
        if self.verdict == VERDICT_TOO_BIG:
            return t("vram.verdict.too_big", lang, min_batch=self.workload.min_batch,
                 need=format_gib(self.min_batch_bytes))
        assert self.target is not None
        key = "vram.verdict.needs_colab" if self.verdict == VERDICT_NEEDS_COLAB else "vram.verdict.needs_cloud"
        text = t(key, lang, target=self.target.label(lang), batch=self.batch_target,
                 min_batch=self.workload.min_batch, need=format_gib(self.min_batch_bytes))
        if self.batch_here > 0:  # something fits here, just not a batch the lesson can use
            key = "vram.verdict.what_if_too_small" if self.what_if else "vram.verdict.here_too_small"
            text += " " + t(key, lang, batch=self.batch_here,
                            min_batch=self.workload.min_batch)
        return text

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {
            "id": self.workload.id,
            "title": self.title(lang),
            "setup": self.workload.setup(lang),
            "verdict": self.verdict,
            "text": self.text(lang),
            "target": self.target.id if self.target else None,
            "batch_here": self.batch_here,
            "batch_target": self.batch_target,
            "course_batch_hint": list(self.workload.batch_hint),
            "min_batch": self.workload.min_batch,
            "min_batch_bytes": self.min_batch_bytes,
            "model": self.workload.model,
            "mode": self.estimate.mode,
            "precision": self.estimate.precision,
            "batch": self.estimate.batch,
            "items": dict(self.estimate.items),
            "total_bytes": self.estimate.total_bytes,
        }


def judge_workload(workload: Workload, vram_total_bytes: int | None, vram_used_bytes: int = 0,
                   context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES,
                   ram_total_bytes: int | None = None) -> WorkloadJudgment:
    """Verdict for one lesson. ``vram_total_bytes`` None or 0: no usable GPU here.
    ``ram_total_bytes``: this machine's RAM, for the lessons small enough to run on a CPU
    (``cpu_ok``) when the GPU cannot take them; None: the CPU is not considered (a what-if GPU)."""
    here_usable = 0
    if vram_total_bytes:
        here_usable = usable_vram_bytes(vram_total_bytes, vram_used_bytes, context_reserve_bytes)
    min_est = workload.estimate(workload.min_batch)
    batch_here = max_batch_that_fits(workload, here_usable)
    if batch_here >= workload.min_batch:
        est = workload.estimate(batch_here, vram_total_bytes, vram_used_bytes, context_reserve_bytes)
        return WorkloadJudgment(workload, VERDICT_RUNS_HERE, batch_here, None, 0, est, min_est.total_bytes)
    if workload.cpu_ok and ram_total_bytes:
        batch_cpu = max_batch_that_fits(workload, int(ram_total_bytes * CPU_RAM_SHARE))
        if batch_cpu >= workload.min_batch:
            est = workload.estimate(batch_cpu)
            return WorkloadJudgment(workload, VERDICT_RUNS_ON_CPU, batch_cpu, None, 0, est, min_est.total_bytes)
    for target in targets():
        usable = usable_vram_bytes(target.vram_bytes, 0, context_reserve_bytes)
        batch = max_batch_that_fits(workload, usable)
        if batch >= workload.min_batch:
            verdict = VERDICT_NEEDS_COLAB if target.id == "colab_t4" else VERDICT_NEEDS_CLOUD
            est = workload.estimate(batch, target.vram_bytes, 0, context_reserve_bytes)
            return WorkloadJudgment(workload, verdict, batch_here, target, batch, est, min_est.total_bytes)
    est = workload.estimate(workload.min_batch, vram_total_bytes, vram_used_bytes, context_reserve_bytes)
    return WorkloadJudgment(workload, VERDICT_TOO_BIG, batch_here, None, 0, est, min_est.total_bytes)


def judge_workloads(vram_total_bytes: int | None, vram_used_bytes: int = 0, *,
                    context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES,
                    workloads: list[Workload] | None = None,
                    ram_total_bytes: int | None = None, what_if: bool = False) -> list[WorkloadJudgment]:
    """Every course lesson judged for a GPU with ``vram_total_bytes`` (None: no GPU), and for
    this machine's CPU when ``ram_total_bytes`` is given. ``what_if``: the GPU is a card the
    student picked, not this machine's, and the verdicts say "this card", never "this GPU"."""
    out = [judge_workload(w, vram_total_bytes, vram_used_bytes, context_reserve_bytes, ram_total_bytes)
           for w in (workloads if workloads is not None else load_workloads())]
    for j in out:
        j.what_if = what_if
    return out


@dataclass
class MachineLessons:
    """The course's lessons judged for one real machine: the verdicts, and what they were
    judged for (the GPU, or its absence) as a sentence for the reader."""

    judgments: list[WorkloadJudgment]
    basis_key: str
    basis_params: dict[str, Any]

    def basis(self, lang: str | None) -> str:
        return t(self.basis_key, lang, **self.basis_params)


def judge_machine_lessons(gpus: list[tuple[str | None, int | None, int]],
                          ram_total_bytes: int | None) -> MachineLessons:
    """THE judgment of the lessons for a machine, used by every face that says which lessons
    run here (the report in the window and ``report`` on the command line alike): the largest
    GPU's memory (``gpus``: (name, total bytes, bytes in use) per NVIDIA GPU), then this machine's
    CPU and RAM for the small lessons, then Colab or the cloud. Never a what-if GPU typed on
    the VRAM page: that page judges its own choice, and says so."""
    usable = [g for g in gpus if g[1]]
    if not usable:
        return MachineLessons(judge_workloads(None, ram_total_bytes=ram_total_bytes),
                              "report.judgment.basis_no_gpu", {})
    name, total, used = max(usable, key=lambda g: g[1] or 0)
    return MachineLessons(judge_workloads(total, used, ram_total_bytes=ram_total_bytes),
                          "report.judgment.basis_gpu", {"name": name or "GPU", "total": format_gib(total or 0, 1)})


def report_lines(judgments: list[WorkloadJudgment], lang: str | None) -> tuple[list[str], list[str]]:
    """('이 환경으로 가능한 강의' lines, 'Colab/클라우드가 필요한 강의' lines) for the report."""
    here = [f"{j.title(lang)}: {j.text(lang)}" for j in judgments if j.runs_here]
    remote = [f"{j.title(lang)}: {j.text(lang)}" for j in judgments if not j.runs_here]
    return here, remote


def report_headings(lang: str | None) -> tuple[str, str]:
    return t("vram.report.runs_here", lang), t("vram.report.needs_remote", lang)


@dataclass(frozen=True)
class CourseTier:
    """A row of the course's GPU tier table."""

    id: str
    gpu: str
    vram_gb: int
    batch_hint: tuple[int, int]
    workloads: tuple[str, ...]

    def text(self, lang: str | None) -> str:
        return t(f"vram.tier.{self.id}", lang, gpu=self.gpu, gb=self.vram_gb,
                 low=self.batch_hint[0], high=self.batch_hint[1])


def course_tiers() -> list[CourseTier]:
    return [CourseTier(id=x["id"], gpu=x["gpu"], vram_gb=int(x["vram_gb"]),
                       batch_hint=(int(x["batch_hint"][0]), int(x["batch_hint"][1])),
                       workloads=tuple(x["workloads"])) for x in _doc()["course_tiers"]]


@dataclass(frozen=True)
class BatchHintRow:
    """The course's batch hint for a VRAM size beside the batch the estimator computes."""

    vram_gb: float
    course_hint: tuple[int, int] | None  # None for this GPU's own row when the course has none
    computed_batch: int
    workload_id: str
    is_this_gpu: bool = False

    def text(self, lang: str | None) -> str:
        hint = (f"{self.course_hint[0]}–{self.course_hint[1]}" if self.course_hint
                else t("common.na", lang))
        return t("vram.batch_hint.row", lang, gb=f"{self.vram_gb:g}", hint=hint, batch=self.computed_batch,
                 workload=get_workload(self.workload_id).title(lang))


def batch_hint_rows(vram_total_bytes: int | None = None, vram_used_bytes: int = 0,
                    context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> list[BatchHintRow]:
    """The course's 6/8/12 GB hints with the computed batch for the reference workload, plus
    this GPU's row when its VRAM is known. A "6 GB" card is taken to hold 6 GiB, as cards do."""
    ref = get_workload(_doc()["batch_hint_reference_workload"])
    rows = []
    for x in _doc()["batch_hints"]:
        usable = usable_vram_bytes(int(x["vram_gb"]) * GIB, 0, context_reserve_bytes)
        rows.append(BatchHintRow(vram_gb=float(x["vram_gb"]),
                                 course_hint=(int(x["batch_hint"][0]), int(x["batch_hint"][1])),
                                 computed_batch=max_batch_that_fits(ref, usable), workload_id=ref.id))
    if vram_total_bytes:
        usable = usable_vram_bytes(vram_total_bytes, vram_used_bytes, context_reserve_bytes)
        gb = round(vram_total_bytes / GIB, 1)
        hint = next(((int(x["batch_hint"][0]), int(x["batch_hint"][1])) for x in _doc()["batch_hints"]
                     if abs(int(x["vram_gb"]) - gb) < 0.5), None)
        rows.append(BatchHintRow(vram_gb=gb, course_hint=hint, computed_batch=max_batch_that_fits(ref, usable),
                                 workload_id=ref.id, is_this_gpu=True))
    return rows
