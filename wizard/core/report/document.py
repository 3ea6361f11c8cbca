"""The report as a document: its dataclasses, its constants, and its plain-dict form.

Why the model holds text, not message keys: the report is a document. It is built in one
language, its JSON (:mod:`wizard.core.report.as_json`) loads back into the same model and renders
to the same Markdown and HTML (:mod:`wizard.core.report.render`), on a machine with another
wizard version. Beside the text, :class:`MachineRecord` keeps each machine's facts as values
(driver, CUDA, GPUs, torch, benchmark times), which is what another report imports for its
Colab/cloud rows (:mod:`wizard.core.report.remote`).

The dict form lives here, next to the classes; the JSON text and the file import build on it.
Redaction works on the typed report itself (:func:`redact_typed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from wizard import __version__
from wizard.core.base.i18n import msg
from wizard.core.base.schema import SchemaError, check_schema

if TYPE_CHECKING:
    from wizard.core.base.privacy import Redactor

T = TypeVar("T")

SCHEMA = "gpu-setup-wizard/report"
SCHEMA_VERSION = "1.1"  # 1.1: ``facts`` (wizard.core.report.as_json.report_facts)

# A line's status. "info": a plain fact; "not_run": the step that measures it did not run.
PASS, WARN, FAIL, SKIP, INFO, NOT_RUN = "pass", "warn", "fail", "skip", "info", "not_run"
STATUSES = (PASS, WARN, FAIL, SKIP, INFO, NOT_RUN)

# Section styles: "fields" shows "label: value" (a mark only for problems); "checks" shows a
# pass/fail mark on every line (the verification checklist).
STYLE_FIELDS, STYLE_CHECKS = "fields", "checks"

KIND_LOCAL, KIND_COLAB, KIND_CLOUD = "local", "colab", "cloud"
MACHINE_KINDS = (KIND_LOCAL, KIND_COLAB, KIND_CLOUD)

# verify's cause for a CPU-only build on a machine without an NVIDIA GPU: the right build there
CPU_BUILD_RIGHT_HERE = "cpu_only_no_gpu"

# Environment variables a Colab runtime sets (its kernel and `!` shell both see them).
COLAB_ENV_VARS = ("COLAB_RELEASE_TAG", "COLAB_GPU", "COLAB_BACKEND_VERSION", "COLAB_JUPYTER_IP")

# The section ids, in the order of the report.
SECTION_ORDER = ("checklist", "benchmark", "judgment", "verify_checklist", "system", "install", "verification",
                 "bench_details", "vram", "findings", "changes")


def gib_from_mib(mib: float | None) -> str | None:
    return None if mib is None else f"{mib / 1024:.1f} GiB"


def gpu_label(name: str | None, memory_mib: float | None, cc: str | None) -> str:
    bits = [b for b in (gib_from_mib(memory_mib), f"sm_{cc.replace('.', '')}" if cc else None) if b]
    return (name or "NVIDIA GPU") + (f" ({', '.join(bits)})" if bits else "")


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------


@dataclass


class Item:
    """One line: ``label: value``, with a status and nested detail lines (cause, fix, lessons)."""

    id: str
    label: str
    value: str
    status: str = INFO
    details: list[str] = field(default_factory=list)


@dataclass


class Table:
    """Rows of text under column headings; ``row_status`` colours a row's status cell."""

    id: str
    columns: list[str]
    rows: list[list[str]]
    caption: str | None = None
    row_status: list[str] = field(default_factory=list)


@dataclass


class Block:
    """Preformatted text kept exactly (commands, collect_env, nvidia-smi). ``text`` None: none."""

    id: str
    title: str
    text: str | None
    empty_note: str | None = None  # what to print instead when there is no text


@dataclass


class Section:
    id: str
    title: str
    level: int = 2
    status: str = INFO  # NOT_RUN when the whole step did not run
    style: str = STYLE_FIELDS
    paragraphs: list[str] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)


@dataclass


class MachineRecord:
    """One machine's facts as values: this PC, or a Colab/cloud machine added to the report."""

    kind: str  # "local" | "colab" | "cloud"
    source: str  # "detection" | "report-json" | "doctor-json" | "nvidia-smi"
    date: str | None = None
    label: str | None = None  # where it came from (a file name), for the reader
    os: str | None = None
    platform_hint: str | None = None  # "colab" when the run itself was inside Colab
    nvidia_status: str | None = None
    driver_version: str | None = None
    cuda_version: str | None = None  # the highest CUDA the driver supports
    gpus: list[dict[str, Any]] = field(default_factory=list)  # name, memory_total_mib, compute_capability
    torch_version: str | None = None
    torch_cuda: str | None = None
    cuda_available: bool | None = None
    bench_size: int | None = None  # N of the course's N×N matmul
    cpu_s: float | None = None
    gpu_s: float | None = None
    speedup: float | None = None
    raw_nvidia_smi: str | None = None  # a pasted or imported nvidia-smi output (remote machines)

    @property
    def gpu_text(self) -> str | None:
        if not self.gpus:
            return None
        return "; ".join(gpu_label(g.get("name"), g.get("memory_total_mib"), g.get("compute_capability"))
                         for g in self.gpus)


@dataclass


class Report:
    lang: str
    generated_at: str
    title: str
    sections: list[Section]
    appendices: list[Block]
    machines: list[MachineRecord]  # [0] is this machine; then the Colab/cloud machines added
    private_included: bool = False
    generator: str = f"gpu-setup-wizard {__version__}"
    facts: dict[str, Any] | None = None  # language-free values (schema 1.1); None in a 1.0 document

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    def item(self, section_id: str, item_id: str) -> Item | None:
        s = self.section(section_id)
        return s.item(item_id) if s else None

    def appendix(self, block_id: str) -> Block | None:
        return next((b for b in self.appendices if b.id == block_id), None)

    @property
    def local(self) -> MachineRecord:
        return self.machines[0]

    @property
    def remotes(self) -> list[MachineRecord]:
        return self.machines[1:]

    def redacted(self, redactor: Redactor) -> "Report":
        """The same report with the user name, home folder, host name and GPU ids replaced: the
        typed report walked field by field (each field's name is the key the redactor's rules
        know, as in the JSON document), never turned into a dict and loaded back."""
        report = redact_typed(self, redactor)
        report.private_included = False
        return report


def redact_typed(value: T, redactor: Redactor, key: str | None = None) -> T:
    """``value`` with every text in it redacted: dataclasses field by field (new instances, the
    original is left as it is), lists and tuples item by item, and plain values (text, numbers,
    dicts of JSON values) by the redactor, which knows the keys that hold serials and host names."""
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: redact_typed(getattr(value, f.name), redactor, f.name) for f in fields(value) if f.init}
        return replace(value, **changes)  # type: ignore[type-var]
    if isinstance(value, list):
        return [redact_typed(v, redactor, key) for v in value]  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(redact_typed(v, redactor, key) for v in value)  # type: ignore[return-value]
    return redactor.redact(value, key)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# The plain-dict form (what the JSON holds)
# ---------------------------------------------------------------------------------------------


class ReportSchemaError(SchemaError):
    """Not a report document, or one of an unsupported major version; the message says which."""


def _plain(obj: Any) -> Any:
    if hasattr(obj, "__dataclass_fields__"):
        return {f.name: _plain(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def report_to_dict(report: Report) -> dict[str, Any]:
    """The JSON document (a dict of JSON types); ``schema`` first so a reader sees it at once."""
    body = _plain(report)
    return {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", **body}


def check_report_schema(doc: Any) -> str:
    """The document's version; raises :class:`ReportSchemaError` for anything else."""
    return check_schema(doc, SCHEMA, SCHEMA_VERSION, ReportSchemaError)


def _build(cls: type[T], data: Any, nested: dict[str, type] | None = None) -> T:
    if not isinstance(data, dict):
        raise ReportSchemaError(msg("report.json.bad_part", part=cls.__name__))
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        inner = (nested or {}).get(f.name)
        if inner is not None:
            if not isinstance(value, list):
                raise ReportSchemaError(msg("report.json.bad_part", part=f"{cls.__name__}.{f.name}"))
            value = [_build(inner, v) for v in value]
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a required field is missing
        raise ReportSchemaError(msg("report.json.bad_part", part=f"{cls.__name__}: {exc}")) from exc


def report_from_dict(doc: dict[str, Any]) -> Report:
    """The :class:`Report` a checked document describes."""
    check_report_schema(doc)
    sections = [_build(Section, s, {"items": Item, "tables": Table, "blocks": Block}) for s in doc.get("sections") or []]
    appendices = [_build(Block, b) for b in doc.get("appendices") or []]
    machines = [_build(MachineRecord, m) for m in doc.get("machines") or []]
    if not machines:
        raise ReportSchemaError(msg("report.json.bad_part", part="machines"))
    data = {k: v for k, v in doc.items() if k not in ("schema", "sections", "appendices", "machines")}
    data.update(sections=sections, appendices=appendices, machines=machines)
    return _build(Report, data)


__all__ = [
    "SCHEMA", "SCHEMA_VERSION", "PASS", "WARN", "FAIL", "SKIP", "INFO", "NOT_RUN", "STATUSES", "STYLE_FIELDS",
    "STYLE_CHECKS", "KIND_LOCAL", "KIND_COLAB", "KIND_CLOUD", "MACHINE_KINDS", "SECTION_ORDER", "CPU_BUILD_RIGHT_HERE",
    "COLAB_ENV_VARS", "Item", "Table", "Block", "Section", "MachineRecord", "Report", "ReportSchemaError",
    "report_to_dict", "report_from_dict", "check_report_schema", "gpu_label", "gib_from_mib",
]
