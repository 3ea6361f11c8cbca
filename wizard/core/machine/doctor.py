"""``doctor``: the detection as JSON (a stable contract) and as text a student can read.

JSON contract (schema ``gpu-setup-wizard/doctor`` version 1.x): ``system``, ``pythons``,
``conda``, ``nvidia`` with ``driver_version`` (str), ``cuda_version`` (highest CUDA the driver
supports, "12.8"), ``gpus[]`` with ``name``, ``memory_total_mib``, ``compute_capability``
("8.6" or null) and everything else detected, and ``findings[]`` with ``id``, ``severity``,
``title``, ``fix``. Readers accept any 1.x and reject another major version with a clear message.
"""

from __future__ import annotations

from typing import Any

from wizard import __version__
from wizard.core.base.i18n import t
from wizard.core.base.privacy import Redactor
from wizard.core.base.schema import check_schema as _check_schema
from wizard.core.base.schema import load_schema_json
from wizard.core.machine.models import STATUS_OK, Detection, GpuInfo, to_jsonable

SCHEMA = "gpu-setup-wizard/doctor"
SCHEMA_VERSION = "1.0"


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
    return _check_schema(doc, expected, SCHEMA_VERSION)


def load_doctor_json(text: str) -> dict[str, Any]:
    """Parse and check a ``doctor --json`` document another machine produced."""
    return load_schema_json(text, SCHEMA, SCHEMA_VERSION)


def _fmt(value: Any, lang: str, unit: str = "") -> str:
    if value is None or value == "":
        return t("common.na", lang)
    if isinstance(value, float):
        value = f"{value:.0f}" if value.is_integer() else f"{value:.1f}"
    return f"{value}{unit}"


def _gib(nbytes: int | None, lang: str) -> str:
    return t("common.na", lang) if nbytes is None else f"{nbytes / 2**30:.1f} GiB"


def format_gpu(gpu: GpuInfo, lang: str) -> list[str]:
    """One GPU's lines of the ``doctor`` summary."""
    def f(value: Any, unit: str = "") -> str:
        return _fmt(value, lang, unit)

    mem = t("common.na", lang)
    if gpu.memory_total_mib is not None:
        used = f"{gpu.memory_used_mib:.0f} / " if gpu.memory_used_mib is not None else ""
        mem = f"{used}{gpu.memory_total_mib:.0f} MiB ({gpu.memory_total_mib / 1024:.1f} GiB)"
    lines = [f"  GPU {gpu.index}: {f(gpu.name)}"]
    rows = [
        ("doctor.gpu.cc", f(gpu.compute_capability) + (f" (sm_{gpu.compute_capability.replace('.', '')})"
                                                        if gpu.compute_capability else "")),
        ("doctor.gpu.memory", mem),
        ("doctor.gpu.temperature", f(gpu.temperature_c, " °C")),
        ("doctor.gpu.power", f"{f(gpu.power_draw_w, ' W')} / {f(gpu.power_limit_w, ' W')}"),
        ("doctor.gpu.utilization", f(gpu.utilization_gpu_percent, " %")),
        ("doctor.gpu.pcie", gpu.pcie_text(t("common.na", lang))),
    ]
    if gpu.driver_model:
        rows.append(("doctor.gpu.driver_model", gpu.driver_model))
    if gpu.mig_mode:
        mig = gpu.mig_mode + (f" ({len(gpu.mig_devices)})" if gpu.mig_devices else "")
        rows.append(("doctor.gpu.mig", mig))
    lines += [f"    {t(key, lang)}: {value}" for key, value in rows]
    return lines


def _system_lines(d: Detection, lang: str) -> list[str]:
    s = d.system
    os_line = s.os_pretty or s.os
    if s.is_wsl:
        os_line += f" (WSL{s.wsl_version or ''})"
    cores = f"{_fmt(s.cpu_physical_cores, lang)}/{_fmt(s.cpu_logical_cores, lang)}"
    out = [
        "",
        t("doctor.section.system", lang),
        f"  {t('doctor.os', lang)}: {os_line}" + (f" [{s.os_build}]" if s.os_build else ""),
        f"  {t('doctor.cpu', lang)}: {_fmt(s.cpu_model, lang)} — {cores}",
        f"  {t('doctor.ram', lang)}: {_gib(s.ram_total_bytes, lang)} "
        f"({t('doctor.available', lang)} {_gib(s.ram_available_bytes, lang)})",
        f"  {t('doctor.disk', lang)}: {_gib(s.disk_free_bytes, lang)} ({_fmt(s.disk_path, lang)})",
        f"  {t('doctor.admin', lang)}: {t('common.yes', lang) if s.is_admin else t('common.no', lang)}",
        "",
        t("doctor.section.python", lang),
    ]
    working = [p for p in d.pythons if not p.error]
    broken = [p for p in d.pythons if p.error]
    for p in working:
        flags = " [venv]" if p.is_venv else ""
        flags += " [externally-managed]" if p.externally_managed else ""
        out.append(f"  {_fmt(p.version, lang)} {p.arch or ''} {p.path} ({p.source}){flags}")
    if not working:
        out.append("  " + t("common.none_found", lang))
    if broken:  # e.g. pyenv shims for versions that are not installed: noise, but countable
        out.append("  " + t("doctor.python_broken", lang, count=len(broken),
                             paths=", ".join(p.path for p in broken[:3]) + (" …" if len(broken) > 3 else "")))
    out.append("  conda: " + (", ".join(f"{c.exe} ({len(c.envs)} env)" for c in d.conda)
                               if d.conda else t("common.none_found", lang)))
    return out


def _nvidia_lines(d: Detection, lang: str) -> list[str]:
    nv = d.nvidia
    out = ["", t("doctor.section.nvidia", lang)]
    if nv.status == STATUS_OK:
        out.append(f"  {t('doctor.driver', lang)}: {_fmt(nv.driver_version, lang)}   "
                   f"{t('doctor.cuda_max', lang)}: {_fmt(nv.cuda_version, lang)}")
        out.append(f"  {t('doctor.sources', lang)}: " + ", ".join(f"{r.source}={r.status}" for r in nv.sources))
        for gpu in nv.gpus:
            out += format_gpu(gpu, lang)
    else:
        out.append("  " + t("doctor.nvidia_status." + nv.status, lang))
    return out


def format_text(d: Detection, lang: str) -> str:
    """The human summary printed by ``doctor``, in ``lang``."""
    out: list[str] = [t("doctor.heading", lang)]
    if d.system.os != "unknown":
        out += _system_lines(d, lang)
    out += _nvidia_lines(d, lang)
    out += ["", t("doctor.section.findings", lang)]
    if not d.findings:
        out.append("  " + t("doctor.no_findings", lang))
    for f in d.findings:
        out.append(f"  [{t('diagnosis.severity.' + f.severity, lang)}] {f.title(lang)}")
        out.append(f"      {f.cause(lang)}")
        out.append(f"      → {f.fix(lang)}")
    if d.duration_s is not None:
        out += ["", t("doctor.duration", lang, seconds=f"{d.duration_s:.2f}")]
    return "\n".join(out)
