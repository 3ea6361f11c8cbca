"""``doctor``: the detection as JSON (a stable contract) and as text a student can read.

JSON contract (schema ``gpu-setup-wizard/doctor`` version 1.x): ``system``, ``pythons``,
``conda``, ``nvidia`` with ``driver_version`` (str), ``cuda_version`` (highest CUDA the driver
supports, "12.8"), ``gpus[]`` with ``name``, ``memory_total_mib``, ``compute_capability``
("8.6" or null) and everything else detected, and ``findings[]`` with ``id``, ``severity``,
``title``, ``fix``. Readers accept any 1.x and reject another major version with a clear message.
"""

from __future__ import annotations

import json
from typing import Any

from wizard import __version__
from wizard.core.base.i18n import t
from wizard.core.machine.models import STATUS_OK, Detection, GpuInfo, to_jsonable
from wizard.core.base.privacy import Redactor

SCHEMA = "gpu-setup-wizard/doctor"
SCHEMA_VERSION = "1.0"


class SchemaError(ValueError):
    """A JSON document of another kind or an unsupported major version."""


def detection_to_json(d: Detection, lang: str, redactor: Redactor | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema": f"{SCHEMA}@{SCHEMA_VERSION}",
        "generator": f"gpu-setup-wizard {__version__}",
        "system": to_jsonable(d.system),
        "pythons": to_jsonable(d.pythons),
        "conda": to_jsonable(d.conda),
        "nvidia": to_jsonable(d.nvidia),
        "findings": [f.to_json(lang) for f in d.findings],
        "duration_s": d.duration_s,
    }
    return redactor.redact(doc) if redactor else doc


def check_schema(doc: Any, expected: str = SCHEMA) -> str:
    """Return the version of a document of kind ``expected``; raise SchemaError otherwise."""
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        raise SchemaError(t("schema.not_ours", kind=expected))
    name, _, version = doc["schema"].partition("@")
    if name != expected:
        raise SchemaError(t("schema.wrong_kind", kind=expected, found=name))
    major = version.split(".")[0]
    if major != SCHEMA_VERSION.split(".")[0]:
        raise SchemaError(t("schema.wrong_major", kind=expected, found=version, supported=SCHEMA_VERSION))
    return version


def load_doctor_json(text: str) -> dict[str, Any]:
    """Parse and check a ``doctor --json`` document another machine produced."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise SchemaError(t("schema.not_json", error=str(exc))) from exc
    check_schema(doc)
    return doc


def _fmt(value: Any, unit: str = "") -> str:
    if value is None or value == "":
        return t("common.na")
    if isinstance(value, float):
        value = f"{value:.0f}" if value.is_integer() else f"{value:.1f}"
    return f"{value}{unit}"


def _gib(nbytes: int | None) -> str:
    return t("common.na") if nbytes is None else f"{nbytes / 2**30:.1f} GiB"


def format_gpu(gpu: GpuInfo) -> list[str]:
    mem = t("common.na")
    if gpu.memory_total_mib is not None:
        used = f"{gpu.memory_used_mib:.0f} / " if gpu.memory_used_mib is not None else ""
        mem = f"{used}{gpu.memory_total_mib:.0f} MiB ({gpu.memory_total_mib / 1024:.1f} GiB)"
    lines = [f"  GPU {gpu.index}: {_fmt(gpu.name)}"]
    rows = [
        ("doctor.gpu.cc", _fmt(gpu.compute_capability) + (f" (sm_{gpu.compute_capability.replace('.', '')})"
                                                            if gpu.compute_capability else "")),
        ("doctor.gpu.memory", mem),
        ("doctor.gpu.temperature", _fmt(gpu.temperature_c, " °C")),
        ("doctor.gpu.power", f"{_fmt(gpu.power_draw_w, ' W')} / {_fmt(gpu.power_limit_w, ' W')}"),
        ("doctor.gpu.utilization", _fmt(gpu.utilization_gpu_percent, " %")),
        ("doctor.gpu.pcie", f"Gen{_fmt(gpu.pcie_gen_current)} x{_fmt(gpu.pcie_width_current)}"
                            f" (max Gen{_fmt(gpu.pcie_gen_max)} x{_fmt(gpu.pcie_width_max)})"),
    ]
    if gpu.driver_model:
        rows.append(("doctor.gpu.driver_model", gpu.driver_model))
    if gpu.mig_mode:
        mig = gpu.mig_mode + (f" ({len(gpu.mig_devices)})" if gpu.mig_devices else "")
        rows.append(("doctor.gpu.mig", mig))
    lines += [f"    {t(key)}: {value}" for key, value in rows]
    return lines


def format_text(d: Detection, lang: str) -> str:
    """The human summary printed by ``doctor`` (in the current language)."""
    s = d.system
    out: list[str] = [t("doctor.heading")]
    if s.os != "unknown":
        os_line = s.os_pretty or s.os
        if s.is_wsl:
            os_line += f" (WSL{s.wsl_version or ''})"
        out += [
            "",
            t("doctor.section.system"),
            f"  {t('doctor.os')}: {os_line}" + (f" [{s.os_build}]" if s.os_build else ""),
            f"  {t('doctor.cpu')}: {_fmt(s.cpu_model)} — {_fmt(s.cpu_physical_cores)}/{_fmt(s.cpu_logical_cores)}",
            f"  {t('doctor.ram')}: {_gib(s.ram_total_bytes)} ({t('doctor.available')} {_gib(s.ram_available_bytes)})",
            f"  {t('doctor.disk')}: {_gib(s.disk_free_bytes)} ({_fmt(s.disk_path)})",
            f"  {t('doctor.admin')}: {t('common.yes') if s.is_admin else t('common.no')}",
            "",
            t("doctor.section.python"),
        ]
        working = [p for p in d.pythons if not p.error]
        broken = [p for p in d.pythons if p.error]
        for p in working:
            flags = " [venv]" if p.is_venv else ""
            flags += " [externally-managed]" if p.externally_managed else ""
            out.append(f"  {_fmt(p.version)} {p.arch or ''} {p.path} ({p.source}){flags}")
        if not working:
            out.append("  " + t("common.none_found"))
        if broken:  # e.g. pyenv shims for versions that are not installed: noise, but countable
            out.append("  " + t("doctor.python_broken", count=len(broken),
                                 paths=", ".join(p.path for p in broken[:3]) + (" …" if len(broken) > 3 else "")))
        out.append("  conda: " + (", ".join(f"{c.exe} ({len(c.envs)} env)" for c in d.conda)
                                   if d.conda else t("common.none_found")))
    nv = d.nvidia
    out += ["", t("doctor.section.nvidia")]
    if nv.status == STATUS_OK:
        out.append(f"  {t('doctor.driver')}: {_fmt(nv.driver_version)}   "
                   f"{t('doctor.cuda_max')}: {_fmt(nv.cuda_version)}")
        out.append(f"  {t('doctor.sources')}: " + ", ".join(f"{r.source}={r.status}" for r in nv.sources))
        for gpu in nv.gpus:
            out += format_gpu(gpu)
    else:
        out.append("  " + t("doctor.nvidia_status." + nv.status))
    out += ["", t("doctor.section.findings")]
    if not d.findings:
        out.append("  " + t("doctor.no_findings"))
    for f in d.findings:
        out.append(f"  [{t('severity.' + f.severity)}] {f.title()}")
        out.append(f"      {f.cause()}")
        out.append(f"      → {f.fix()}")
    if d.duration_s is not None:
        out += ["", t("doctor.duration", seconds=f"{d.duration_s:.2f}")]
    return "\n".join(out)
