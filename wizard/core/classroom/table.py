"""The class table and its summary: who is ready, who needs help and why, what to announce.

Why grouped by failure family: twenty students with "CPU-only torch on a GPU machine" need one
announcement, not twenty answers. A family is the failure mode's id (failure-modes.json), so
the fix announced is the wizard's own fix text for it, in the instructor's language (the key
comes with the facts; a 1.0 report without keys gives its own fix line, in its language).

Ready means: verification ran, nothing failed, and no finding is an error. A report without a
verification is "needs help" (the wizard cannot say the install works).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wizard.core.base.i18n import has, t
from wizard.core.classroom.facts import FindingFact
from wizard.core.classroom.roster import Roster, Student

NOT_VERIFIED = "class:not-verified"  # the family of "no verification in the report"
VERIFY_FAILED = "class:verify-failed"  # a failed check with no finding to say why
HELP_SEVERITIES = ("error", "warning")
# GPU tiers of the plot, by the largest GPU's memory (GiB): below 6, 6-8, 8-12, 12-16, 16-24, 24 and up.
TIER_BOUNDS_GIB = (6, 8, 12, 16, 24)
TIER_NONE = "none"
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
_FIX_KEY = re.compile(r"^(finding\.[a-z0-9._-]+\.fix|verify\.fix\.[a-z0-9_.-]+)$")


@dataclass
class Row:
    """One student's line of the table (values, not text: each output formats them)."""

    student: Student
    ready: bool
    families: list[str]  # why help is needed (error/warning findings), in the report's order
    colab: list[str]  # lesson ids whose verdict is "colab"
    cloud: list[str]  # lesson ids whose verdict is "cloud" or "cannot"
    tier: str


@dataclass
class Group:
    """The students sharing one failure family, and the fix to announce to them."""

    family: str
    labels: list[str] = field(default_factory=list)
    finding: FindingFact | None = None  # the first one seen (its fix key or text)
    lang: str | None = None  # the language of ``finding.fix_text``


@dataclass
class ClassTable:
    rows: list[Row]
    groups: list[Group]  # most students first
    roster: Roster

    @property
    def ready(self) -> int:
        return sum(1 for r in self.rows if r.ready)

    @property
    def need_help(self) -> int:
        return len(self.rows) - self.ready

    def tier_counts(self) -> list[tuple[str, int]]:
        counts = {tier: 0 for tier in tier_ids()}
        for r in self.rows:
            counts[r.tier] = counts.get(r.tier, 0) + 1
        return list(counts.items())

    def colab_counts(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for r in self.rows:
            for lesson in r.colab:
                counts[lesson] = counts.get(lesson, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def tier_ids() -> list[str]:
    ids = [TIER_NONE, f"lt{TIER_BOUNDS_GIB[0]}"]
    ids += [f"{lo}-{hi}" for lo, hi in zip(TIER_BOUNDS_GIB, TIER_BOUNDS_GIB[1:])]
    return ids + [f"ge{TIER_BOUNDS_GIB[-1]}"]


def tier_of(vram_bytes: int | None) -> str:
    """The tier of a GPU's memory; a card sold as "8 GB" that reports a little less still counts as 8."""
    if not vram_bytes:
        return TIER_NONE
    gib = vram_bytes / 2**30 + 0.25
    if gib < TIER_BOUNDS_GIB[0]:
        return f"lt{TIER_BOUNDS_GIB[0]}"
    for lo, hi in zip(TIER_BOUNDS_GIB, TIER_BOUNDS_GIB[1:]):
        if gib < hi:
            return f"{lo}-{hi}"
    return f"ge{TIER_BOUNDS_GIB[-1]}"


def tier_text(tier: str, lang: str) -> str:
    if tier == TIER_NONE:
        return t("class_view.tier.none", lang)
    if tier.startswith("lt"):
        return t("class_view.tier.below", lang, gb=tier[2:])
    if tier.startswith("ge"):
        return t("class_view.tier.above", lang, gb=tier[2:])
    lo, hi = tier.split("-")
    return t("class_view.tier.range", lang, lo=lo, hi=hi)


def _row(student: Student) -> Row:
    f = student.facts
    families = [x.family for x in f.findings if x.severity in HELP_SEVERITIES]
    if f.verify is None:
        families.append(NOT_VERIFIED)
    elif f.verify.failed and not families:
        families.append(VERIFY_FAILED)
    errors = any(x.severity == "error" for x in f.findings)
    ready = f.verify is not None and f.verify.failed == 0 and not errors
    return Row(student, ready, list(dict.fromkeys(families)),
               [x.id for x in f.lessons if x.verdict == "colab"],
               [x.id for x in f.lessons if x.verdict in ("cloud", "cannot")], tier_of(f.vram_bytes))


def class_table(roster: Roster) -> ClassTable:
    """The table of ``roster``: a row per student (sorted by label), the help groups by family."""
    rows = sorted((_row(s) for s in roster.students), key=lambda r: (r.student.label.casefold(), r.student.file))
    groups: dict[str, Group] = {}
    for r in rows:
        if r.ready:
            continue
        for fam in r.families:
            g = groups.setdefault(fam, Group(fam))
            g.labels.append(r.student.label)
            if g.finding is None:
                g.finding = next((x for x in r.student.facts.findings if x.family == fam), None)
                g.lang = r.student.lang
    ordered = sorted(groups.values(), key=lambda g: (-len(g.labels), g.family))
    return ClassTable(rows, ordered, roster)


# --- words for a family, in the instructor's language ----------------------------------------------


def _fill(text: str) -> str:
    """A catalogue text whose parameters belong to one student: shown as "…" in a class announcement."""
    return _PLACEHOLDER.sub("…", text)


def family_title(group: Group, lang: str) -> str:
    fam = group.family
    if fam in (NOT_VERIFIED, VERIFY_FAILED):
        return t(f"class_view.family.{fam.split(':')[1]}", lang)
    variant = group.finding.variant if group.finding else None
    for key in ([f"finding.{fam}.{variant}.title"] if variant else []) + [f"finding.{fam}.title"]:
        if has(key):
            return _fill(t(key, lang))
    if fam.startswith("verify:") and has(f"verify.cause.{fam[7:]}"):
        return _fill(t(f"verify.cause.{fam[7:]}", lang))
    return fam


def family_fix(group: Group, lang: str) -> str | None:
    """The fix to announce: the catalogue's, by the key the report gave (only keys of the
    wizard's own fix texts are looked up), else the report's own line, else none."""
    if group.family == NOT_VERIFIED:
        return t("class_view.fix.not_verified", lang)
    f = group.finding
    if f is None:
        return t("class_view.fix.verify_failed", lang) if group.family == VERIFY_FAILED else None
    if f.fix_key and _FIX_KEY.match(f.fix_key) and has(f.fix_key):
        return _fill(t(f.fix_key, lang))
    return f.fix_text


def lesson_title(lesson_id: str, lang: str) -> str:
    key = f"vram.workload.{lesson_id}.title"
    return t(key, lang) if has(key) else lesson_id


__all__ = ["Row", "Group", "ClassTable", "class_table", "tier_ids", "tier_of", "tier_text", "family_title",
           "family_fix", "lesson_title", "NOT_VERIFIED", "VERIFY_FAILED", "TIER_NONE"]
