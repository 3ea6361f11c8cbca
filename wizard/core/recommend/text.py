"""The recommendation as text for the terminal (``gpu-setup-wizard recommend``)."""

from __future__ import annotations

from wizard.core.base.i18n import t
from wizard.core.recommend.recommender import Candidate, Recommendation


def candidate_title(c: Candidate) -> str:
    extras = ", ".join(f"{name} {ver}" for name, ver in (("torchvision", c.torchvision), ("torchaudio", c.torchaudio))
                       if ver)
    return f"torch {c.torch} ({c.variant})" + (f" + {extras}" if extras else "")


def format_recommendation(rec: Recommendation, lang: str, *, python_note: str | None = None,
                          show_all: bool = False) -> str:
    out: list[str] = [t("recommend.cli.heading", lang)]
    f = rec.facts
    gpus = ", ".join([f"{n or 'NVIDIA'} (sm_{c.replace('.', '')})" for c, n in
                      zip(f.gpu_ccs, f.gpu_names + [""] * len(f.gpu_ccs))]
                     + [t("recommend.cli.cc_unread", lang, name=n or "NVIDIA") for n in f.cc_unknown_names])
    if not gpus:  # a GPU without its name (a typed-in driver): never "no NVIDIA GPU" beside a driver
        gpus = t("recommend.cli.nvidia_unnamed" if f.has_nvidia else "recommend.cli.no_nvidia", lang)
    out.append("  " + t("recommend.cli.machine", lang, os=f.os + (" (WSL2)" if f.is_wsl else ""), arch=f.arch,
                        python=f.python, driver=f.driver_version or "—", cuda=f.cuda_driver or "—", gpus=gpus))
    if python_note:
        out.append("  " + python_note)
    required = [a for a in rec.advice if a.severity == "required"]
    for a in required:
        out += ["", "  ‼ " + a.text(lang)] + [f"      $ {cmd}" for cmd in a.commands]
    best = rec.best
    out.append("")
    if best is None:
        out.append("  " + t("recommend.cli.none", lang))
    else:
        out.append("  ▶ " + candidate_title(best))
        out += ["    ✓ " + m.text(lang) for m in best.reasons]
        out += ["    ! " + m.text(lang) for m in best.warnings]
        out += ["", "  " + t("recommend.cli.commands", lang)]
        for tool, text in best.commands().as_text().items():
            lines = text.splitlines()
            out.append(f"    {tool + ':':<7}{lines[0]}")
            out += [f"           {line}" for line in lines[1:]]
    others = [a for a in rec.advice if a.severity != "required"]
    if others:
        out += ["", "  " + t("recommend.cli.advice", lang)]
        for a in others:
            out.append("    • " + a.text(lang))
            out += [f"        $ {cmd}" for cmd in a.commands]
    alternatives = rec.alternatives if show_all else rec.alternatives[:5]
    if alternatives:
        out += ["", "  " + t("recommend.cli.alternatives", lang, count=len(rec.alternatives))]
        out += ["    - " + candidate_title(c) + ("  ⚠" if c.warnings else "") for c in alternatives]
    rejected = rec.rejected if show_all else rec.rejected[:10]
    if rejected:
        out += ["", "  " + t("recommend.cli.rejected", lang, count=len(rec.rejected))]
        out += [f"    ✗ torch {r.torch} {r.variant}: {r.reason.text(lang)}" for r in rejected]
        if len(rejected) < len(rec.rejected):
            out.append("    " + t("recommend.cli.more", lang, count=len(rec.rejected) - len(rejected)))
    out += ["", t("recommend.cli.reviewed", lang, date=rec.reviewed_on)]
    if rec.data_source is not None:
        out.append(rec.data_source.text(lang))
        if rec.data_source.refused is not None:
            out.append(rec.data_source.refused.text(lang))
    return "\n".join(out)
