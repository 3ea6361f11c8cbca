"""Colab and cloud rows: another machine's results, imported into this machine's report.

The lesson asks whether Colab and a cloud GPU were used, and to compare their benchmark with
the local one. The Colab cell (:mod:`wizard.core.report.colab_cell`: the wizard's own probes,
nothing to install there) writes a ``remote-probe`` JSON; that, another machine's
``report --json``, or just the output of Colab's ``!nvidia-smi`` pasted into a file, becomes a
:class:`~wizard.core.report.document.MachineRecord` that fills the Colab or cloud line of the
checklist and a row of the benchmark comparison. A ``doctor --json`` file is read as well (GPU
and driver only).

Colab or cloud: a report made inside Colab says so (it saw Colab's environment variables);
a pasted nvidia-smi output counts as Colab when the paste shows Colab's marks (the ``!nvidia-smi``
cell, ``/content``) or one of Colab's GPUs, else as a cloud GPU. The caller can always say
which (``colab:FILE`` / ``cloud:FILE`` on the command line, a choice in the window).

Every remote record is redacted on import with the remote's *own* identity
(:func:`wizard.core.base.privacy.remote_redactor`): a report made there with ``--include private``,
a pasted ``nvidia-smi`` listing ``/home/<user>/venv/bin/python`` among its processes, or a document
recording its ``home``/``user`` would otherwise carry that machine's home folder and user name
into all four formats of this report (this machine's redactor knows only this machine).
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from wizard.core.base.i18n import MessageError, msg
from wizard.core.base.schema import SchemaError, check_schema, split_schema
from wizard.core.base.typed import DocumentTypeError
from wizard.core.base.user_input import MAX_USER_BYTES, UserInputError, loads_user_json, read_user_text
from wizard.core.machine.doctor import SCHEMA as DOCTOR_SCHEMA
from wizard.core.machine.doctor import SCHEMA_VERSION as DOCTOR_SCHEMA_VERSION
from wizard.core.machine.models import STATUS_NO_DRIVER, STATUS_OK, STATUS_UNRECOGNISED
from wizard.core.report.as_json import loads
from wizard.core.report.build import with_remote
from wizard.core.report.colab_cell import REMOTE_SCHEMA, REMOTE_SCHEMA_VERSION
from wizard.core.report.document import KIND_CLOUD, KIND_COLAB, MachineRecord

REMOTE_KINDS = (KIND_COLAB, KIND_CLOUD)
MAX_INPUT_BYTES = MAX_USER_BYTES  # a report with collect_env is ~100 kB; anything this big is not ours

# GPUs Colab hands out (free T4; L4 and A100 on paid plans); with no other mark a paste with one
# of these is taken as Colab.
_COLAB_GPUS = re.compile(r"\b(Tesla T4|Tesla K80|Tesla P100|NVIDIA L4|Tesla V100)\b")
_COLAB_MARKS = re.compile(r"^\s*!\s*nvidia-smi|/content\b|\bcolab\b", re.IGNORECASE | re.MULTILINE)


class RemoteInputError(MessageError, ValueError):
    """The text is neither a report/doctor JSON nor an nvidia-smi output; the message says why."""


def split_kind(arg: str) -> tuple[str | None, str]:
    """``"colab:FILE"`` → ("colab", "FILE"); ``"cloud:FILE"`` → ("cloud", "FILE"); else (None, arg)."""
    for kind in REMOTE_KINDS:
        if arg.lower().startswith(kind + ":"):
            return kind, arg[len(kind) + 1:]
    return None, arg


def guess_smi_kind(text: str) -> str:
    if _COLAB_MARKS.search(text) or _COLAB_GPUS.search(text):
        return KIND_COLAB
    return KIND_CLOUD


def machine_from_nvidia_smi(text: str, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """A machine from a pasted nvidia-smi output (any format the wizard reads; a failure text too)."""
    from wizard.core.machine import nvidia_smi

    result = nvidia_smi.parse_any(text)
    if result.status == STATUS_UNRECOGNISED:
        raise RemoteInputError(msg("report.remote.unrecognised", reason=result.detail or "?"))
    gpus = [{"name": g.name, "memory_total_mib": g.memory_total_mib, "compute_capability": g.compute_capability}
            for g in result.gpus] if result.status == STATUS_OK else []
    return MachineRecord(kind=kind or guess_smi_kind(text), source="nvidia-smi", label=label,
                         nvidia_status=result.status, driver_version=result.driver_version,
                         cuda_version=result.cuda_version, gpus=gpus, raw_nvidia_smi=text.strip("\n") + "\n")


def machine_from_report(text: str, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """The machine that made a ``report --json`` document, as a remote row."""
    report = loads(text)
    own = report.local
    smi = report.appendix("nvidia_smi")
    chosen = kind or (KIND_COLAB if own.platform_hint == "colab" else KIND_CLOUD)
    record = with_remote(own, chosen, label)
    record.source = "report-json"
    if record.raw_nvidia_smi is None and smi is not None and smi.text:
        record.raw_nvidia_smi = smi.text
    return record


def machine_from_doctor(doc: dict, kind: str | None = None, label: str | None = None) -> MachineRecord:
    from wizard.core.machine.doctor_import import detection_from_doctor_json

    d = detection_from_doctor_json(doc)
    nv = d.nvidia
    gpus = [{"name": g.name, "memory_total_mib": g.memory_total_mib, "compute_capability": g.compute_capability}
            for g in nv.gpus] if nv.status == STATUS_OK else []
    return MachineRecord(kind=kind or KIND_CLOUD, source="doctor-json", label=label,
                         os=d.system.os_pretty if d.system.os != "unknown" else None, nvidia_status=nv.status,
                         driver_version=nv.driver_version, cuda_version=nv.cuda_version, gpus=gpus,
                         raw_nvidia_smi=nv.raw_smi_output)


def _probe_events(doc: dict, part: str) -> list[dict]:
    """The events of ``doc[part]`` (``{"events": [...]}``); a wrong shape is refused by name."""
    value = doc.get(part)
    if value is None:
        return []
    events = value.get("events") if isinstance(value, dict) else None
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise RemoteInputError(msg("report.json.bad_part", part=f"{part}.events"))
    return events


def machine_from_remote_probe(doc: dict, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """The machine a Colab cell (or its SSH form) ran on, from its ``remote-probe`` document:
    the verify and benchmark events read by the same code as this machine's own, the GPUs and
    driver from its ``nvidia-smi`` output (else from what torch saw)."""
    from wizard.core.report.inputs import ReportInputs, local_machine
    from wizard.core.verify.benchmark import BenchReport
    from wizard.core.verify.checklist import VerifyReport

    verify_events, bench_events = _probe_events(doc, "verify"), _probe_events(doc, "bench")
    if not verify_events:
        raise RemoteInputError(msg("report.json.bad_part", part="verify.events"))
    made_at = doc.get("made_at") if isinstance(doc.get("made_at"), str) else None
    inputs = ReportInputs(started_at=made_at or "", verify=VerifyReport.from_events(verify_events),
                          bench=BenchReport.from_events(bench_events) if bench_events else None)
    record = local_machine(inputs, "en")
    platform_doc: dict[str, Any] = doc["platform"] if isinstance(doc.get("platform"), dict) else {}
    own_kind = doc.get("kind") if doc.get("kind") in REMOTE_KINDS else None
    record.kind = kind or (KIND_COLAB if platform_doc.get("colab") is True else own_kind or KIND_CLOUD)
    record.source, record.label, record.date = "remote-probe", label, made_at
    if isinstance(platform_doc.get("system"), str):
        record.os = platform_doc["system"]
    smi = doc.get("nvidia_smi")
    if isinstance(smi, str) and smi.strip():
        smi_machine = machine_from_nvidia_smi(smi, record.kind, label)
        record.nvidia_status, record.driver_version = smi_machine.nvidia_status, smi_machine.driver_version
        record.cuda_version, record.gpus, record.raw_nvidia_smi = (smi_machine.cuda_version, smi_machine.gpus,
                                                                   smi_machine.raw_nvidia_smi)
    else:
        devices = (inputs.verify.facts.get("devices") if inputs.verify is not None else None) or []
        record.gpus = [{"name": d.get("name"), "memory_total_mib": (d.get("total_memory") or 0) / 2**20 or None,
                        "compute_capability": d.get("capability")} for d in devices
                       if isinstance(d, dict) and isinstance(d.get("name"), str)]
        record.nvidia_status = STATUS_OK if record.gpus else STATUS_NO_DRIVER
    return record


def redact_remote(record: MachineRecord, *sources: Any) -> MachineRecord:
    """``record`` with the remote machine's home folders and user names hidden (found in the
    record and in ``sources``, the document it came from)."""
    from wizard.core.base.privacy import remote_redactor

    data = asdict(record)
    redactor = remote_redactor(data, *sources)
    return MachineRecord(**redactor.redact(data))


def machine_from_text(text: str, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """A report JSON, a doctor JSON or an nvidia-smi output, whichever ``text`` is, redacted
    with the remote's own identity (:func:`redact_remote`)."""
    record, source = _machine_from_text(text, kind, label)
    return redact_remote(record, source)


def _machine_from_text(text: str, kind: str | None, label: str | None) -> tuple[MachineRecord, Any]:
    if kind is not None and kind not in REMOTE_KINDS:
        raise ValueError(f"kind must be one of {REMOTE_KINDS}, not {kind!r}")
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        raise RemoteInputError(msg("cli.error.empty"))
    if stripped.startswith("{"):
        try:
            doc = loads_user_json(stripped)
        except UserInputError as exc:
            raise RemoteInputError(exc.message) from exc
        except ValueError as exc:
            raise RemoteInputError(msg("common.schema.not_json", error=str(exc))) from exc
        name = split_schema(str(doc.get("schema", "")))[0] if isinstance(doc, dict) else ""
        try:
            if name == DOCTOR_SCHEMA:
                check_schema(doc, DOCTOR_SCHEMA, DOCTOR_SCHEMA_VERSION)
                return machine_from_doctor(doc, kind, label), doc
            if name == REMOTE_SCHEMA:
                check_schema(doc, REMOTE_SCHEMA, REMOTE_SCHEMA_VERSION)
                return machine_from_remote_probe(doc, kind, label), doc
            return machine_from_report(stripped, kind, label), doc
        except (SchemaError, DocumentTypeError) as exc:  # a ReportSchemaError is one too
            raise RemoteInputError(exc.message) from exc
    return machine_from_nvidia_smi(text, kind, label), text


def machine_from_file(path: str | os.PathLike[str], kind: str | None = None) -> MachineRecord:
    """Read a file as :func:`machine_from_text` does (UTF-16 from PowerShell, cp949, BOMs).
    At most :data:`MAX_INPUT_BYTES` are read (a device such as /dev/zero has no size to check first);
    a longer file is refused. Raises OSError when it cannot be read, RemoteInputError when it is not ours."""
    p = Path(path)
    read = read_user_text(p, MAX_INPUT_BYTES)
    if read.truncated:
        raise RemoteInputError(msg("report.remote.too_big", name=p.name))
    return machine_from_text(read.text, kind, p.name)


__all__ = ["RemoteInputError", "REMOTE_KINDS", "split_kind", "guess_smi_kind", "machine_from_nvidia_smi",
           "machine_from_report", "machine_from_doctor", "machine_from_remote_probe", "machine_from_text", "machine_from_file",
           "redact_remote"]
