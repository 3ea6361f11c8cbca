"""What the report is built from: one typed value, :class:`ReportInputs`, instead of a session.

Why a dataclass of its own: the report stage comes before the application layer, so it must not
import :mod:`wizard.app`; and a report a teaching assistant trusts must say exactly which facts it
was built from. The application layer (``wizard.app.report.report_inputs``) fills one; :func:`~wizard.core.report.build.build_report` reads nothing else.

The later steps' results are read as the typed values they are (a :class:`VerifyReport`'s
:class:`Check` rows, a :class:`BenchReport`'s results, an :class:`InstallSummary`): fields, not
string keys. Their ``--json`` outputs are made from the same values, so the two cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from wizard.core.base.i18n import t
from wizard.core.machine.models import STATUS_OK, Detection, GpuInfo
from wizard.core.report.document import KIND_LOCAL, MachineRecord
from wizard.core.report.text import detect_platform_hint

if TYPE_CHECKING:
    from wizard.core.base.privacy import Redactor
    from wizard.core.install.summary import InstallSummary
    from wizard.core.recommend.choose_python import PythonChoice
    from wizard.core.recommend.recommender import Candidate
    from wizard.core.verify.benchmark import BenchReport, BenchResult
    from wizard.core.verify.checklist import VerifyReport
    from wizard.core.verify.checks import Check


@dataclass(frozen=True)
class ReportInputs:
    """Everything one report is made of. A step that did not run is ``None`` (the report says
    "not run"); nothing here is looked up later from anywhere else."""

    started_at: str  # when the run began (ISO 8601): the machine's facts were read then
    lang: str = "en"
    environ: Mapping[str, str] = field(default_factory=dict)  # Colab detection and redaction
    home: str | None = None  # hidden in a redacted report
    hostname: str | None = None  # the OS's node name, hidden too (detection's host name wins)
    detection: Detection | None = None
    detection_error: str | None = None
    recommendation: PythonChoice | None = None
    candidate: Candidate | None = None  # the build the student picked, when not the recommended one
    install: InstallSummary | None = None  # the install job's summary
    install_plan: Mapping[str, Any] | None = None  # what the Environment page set up: requirements, index_url
    verify: VerifyReport | None = None
    bench: BenchReport | None = None
    vram: Any = None  # the VramEstimate of the workload the student chose
    diagnosis: Sequence[Any] | None = None  # Diagnosis items (wizard.core.diagnosis.rules)
    changes_checked: bool = False  # history was compared (``changes`` None: nothing to compare with)
    changes: Any = None  # a SnapshotDiff; history is a later stage, so it is not named here
    remotes: Sequence[MachineRecord] = ()  # Colab/cloud machines added to the report
    # the checklist run inside a Jupyter kernel: (the kernel's display name, its VerifyReport)
    kernel_verify: tuple[str, VerifyReport] | None = None

    def __post_init__(self) -> None:
        """A result of another type is a bug in the caller, said at once: read as "not run" it
        would hide a step, and read as a document it would be looked up by string keys again."""
        from wizard.core.install.summary import InstallSummary
        from wizard.core.verify.benchmark import BenchReport
        from wizard.core.verify.checklist import VerifyReport

        kernel = self.kernel_verify[1] if self.kernel_verify is not None else None
        for name, value, kind in (("verify", self.verify, VerifyReport), ("bench", self.bench, BenchReport),
                                  ("install", self.install, InstallSummary), ("kernel_verify", kernel, VerifyReport)):
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"ReportInputs.{name} must be a {kind.__name__}, not {type(value).__name__}")


def inputs_redactor(inputs: ReportInputs) -> Redactor:
    """Who to hide: the home folder and user of the inputs' machine, and its host name."""
    from wizard.core.base.privacy import redactor_for

    hostname = (inputs.detection.system.hostname if inputs.detection else None) or inputs.hostname
    return redactor_for(inputs.home, inputs.environ, hostname)


# ---------------------------------------------------------------------------------------------
# Reading the later steps' results
# ---------------------------------------------------------------------------------------------




def checks_of(verify: VerifyReport | None) -> list[Check]:
    return list(verify.checks) if verify is not None else []


def check_of(verify: VerifyReport | None, cid: str, device: int | None = None) -> Check | None:
    for c in checks_of(verify):
        if c.id == cid and (device is None or c.device in (device, None)):
            return c
    return None


def cuda_available(verify: VerifyReport | None) -> bool | None:
    """What ``torch.cuda.is_available()`` answered in the environment (None: not asked)."""
    cuda = verify.facts.get("cuda") if verify is not None else None
    value = cuda.get("is_available") if isinstance(cuda, dict) else None
    return value if isinstance(value, bool) else None


def bench_course(bench: BenchReport | None) -> tuple[BenchResult | None, BenchResult | None]:
    """The course's N×N matmul on the CPU and on the GPU (the last of each)."""
    cpu = gpu = None
    for r in bench.results if bench is not None else []:
        if r.id == "course_matmul":
            if r.device == "cpu":
                cpu = r
            else:
                gpu = r
    return cpu, gpu


# ---------------------------------------------------------------------------------------------
# This machine as a record
# ---------------------------------------------------------------------------------------------


def gpus_of(detection: Detection | None) -> list[GpuInfo]:
    if detection is None or detection.nvidia.status != STATUS_OK:
        return []
    return list(detection.nvidia.gpus)


def local_machine(inputs: ReportInputs, lang: str | None = None) -> MachineRecord:
    """This machine's facts as a record (``machines[0]`` of the report)."""
    d = inputs.detection
    verify = inputs.verify
    record = MachineRecord(kind=KIND_LOCAL, source="detection", date=inputs.started_at,
                           platform_hint=detect_platform_hint(inputs.environ))
    if d is not None:
        record.os = d.system.os_pretty or (d.system.os if d.system.os != "unknown" else None)
        record.nvidia_status = d.nvidia.status
        record.driver_version = d.nvidia.driver_version
        record.cuda_version = d.nvidia.cuda_version
        record.gpus = [{"name": g.name, "memory_total_mib": g.memory_total_mib,
                        "compute_capability": g.compute_capability} for g in gpus_of(d)]
    if verify is not None:
        versions = verify.versions
        record.torch_version = versions.get("torch")
        record.torch_cuda = versions.get("cuda")
        record.cuda_available = cuda_available(verify)
    cpu, gpu = bench_course(inputs.bench)
    if cpu is not None:
        record.bench_size = cpu.size
        record.cpu_s = cpu.median_s
    if gpu is not None:
        record.gpu_s = gpu.median_s
    if record.cpu_s and record.gpu_s:
        record.speedup = record.cpu_s / record.gpu_s
    return record


@dataclass


class ReportContext:
    """What every section builder reads: the inputs, the language, the documents read once."""

    inputs: ReportInputs
    lang: str
    detection: Detection | None
    verify: VerifyReport | None
    bench: BenchReport | None
    install: InstallSummary | None
    machines: list[MachineRecord]
    made_at: str = ""  # when this report is made (ISO 8601): the checklist's date

    def t(self, key: str, **params: Any) -> str:
        return t(key, self.lang, **params)


__all__ = ["ReportInputs", "ReportContext", "inputs_redactor", 
           "checks_of", "cuda_available", "check_of", "bench_course", "gpus_of", "local_machine"]
