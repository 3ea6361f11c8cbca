"""How the report writes numbers, dates, statuses and machines: one place, so every section
(and the window's Colab/cloud list) spells a time or a machine the same way.
"""

from __future__ import annotations

import datetime as _dt
from typing import Mapping

from wizard.core.base.i18n import t
from wizard.core.report.document import COLAB_ENV_VARS, MachineRecord


def num(value: float, digits: int = 3) -> str:
    """Significant digits without exponent for the magnitudes a report shows."""
    if value == 0:
        return "0"
    if abs(value) >= 10 ** digits:
        return f"{value:.0f}"
    text = f"{value:.{digits}g}"
    if "e" in text:
        text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text


def fmt_seconds(seconds: float | None, lang: str) -> str:
    if seconds is None:
        return t("common.na", lang)
    if seconds >= 0.001:
        return f"{num(seconds, 4)} s"
    return f"{num(seconds * 1e6, 3)} µs"


def fmt_duration(seconds: float | None, lang: str) -> str:
    """A duration in the unit that reads best: '1.198 s', '418.1 ms', '23.1 µs' (tables)."""
    if seconds is None:
        return t("common.na", lang)
    if seconds >= 1:
        return f"{num(seconds, 4)} s"
    if seconds >= 0.001:
        return f"{num(seconds * 1e3, 4)} ms"
    return f"{num(seconds * 1e6, 3)} µs"


def fmt_speedup(factor: float | None, lang: str) -> str:
    if factor is None:
        return t("common.na", lang)
    return t("report.speedup_value", lang, factor=num(factor, 3))


def gib(n_bytes: float | None) -> str | None:
    return None if n_bytes is None else f"{n_bytes / 2**30:.1f} GiB"


def status_word(status: str, lang: str) -> str:
    return t(f"report.status.{status}", lang)


def not_run(lang: str, why_key: str | None = None) -> str:
    text = t("report.not_run", lang)
    return f"{text} — {t(why_key, lang)}" if why_key else text


def detect_platform_hint(environ: Mapping[str, str]) -> str | None:
    """"colab" when these variables say the process runs in a Colab runtime, else None."""
    return "colab" if any(environ.get(name) for name in COLAB_ENV_VARS) else None


def date_text(iso: str | None) -> str | None:
    if not iso:
        return None
    try:
        when = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return when.strftime("%Y-%m-%d %H:%M")


def remote_summary(m: MachineRecord, lang: str) -> str:
    """'Tesla T4 (15.0 GiB), driver 550.54.15, CUDA 12.4 (pasted nvidia-smi output)'."""
    parts = [m.gpu_text or (t("report.remote.no_gpu", lang) if m.nvidia_status else t("common.na", lang))]
    if m.driver_version:
        parts.append(t("report.remote.driver", lang, driver=m.driver_version, cuda=m.cuda_version or "?"))
    if m.torch_version:
        parts.append(f"torch {m.torch_version}")
    return f"{', '.join(parts)} ({t('report.source.' + m.source, lang)})"


def machine_title(m: MachineRecord, lang: str) -> str:
    """'Colab · colab.json': the kind, and the file it came from."""
    return t(f"report.machine.{m.kind}", lang) + (f" · {m.label}" if m.label else "")


__all__ = ["num", "fmt_seconds", "fmt_duration", "fmt_speedup", "gib", "status_word", "not_run",
           "detect_platform_hint", "date_text", "remote_summary", "machine_title"]
