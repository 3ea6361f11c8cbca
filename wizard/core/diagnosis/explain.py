"""Recognise failure texts a student pastes — a terminal, a notebook traceback, collect_env
output — and explain them: one finding per failure mode, with the line that gave it away.

Why pattern data and not code: the texts come from torch, NVML, nvidia-smi, pip and the
kernel, and new ones turn up; ``resources/failure_patterns.json`` holds them with the source
of each, and a test checks every symptom of the failure catalogue the data was written from. Two things need
code: ``python -m torch.utils.collect_env`` reports (their fields only mean something together:
"CUDA used to build PyTorch: None" with "Is CUDA available: False" is a CPU-only build) and the
three different "CUDA versions" (driver, toolkit, wheel) a paste may show side by side.

What students paste is messy, so the text is cleaned first: ANSI colours (also their
JSON-escaped and ESC-less remains), CRLF and progress-bar CRs, smart quotes, the won sign a
Korean Windows console shows for a backslash, notebook (.ipynb) JSON; and every run of
whitespace is collapsed, so a console that hard-wraps long lines does not hide a message.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

from packaging.version import Version

from wizard.core.base.i18n import msg
from wizard.core.base.resources import load_json
from wizard.core.diagnosis.facts import parse_conda_list, parse_pip_list
from wizard.core.diagnosis.model import ACTION_OPEN_URL, Action, Diagnosis, action_for, driver_vs_build
from wizard.core.machine.nvidia_smi.values import cuda_version_from_int

PATTERNS_FILE = "failure_patterns.json"
PATTERNS_SCHEMA = "gsw-failure-patterns/1"
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
MAX_EVIDENCE_LINES = 6
MAX_EVIDENCE_CHARS = 700
WRAP_MIN = 79  # a line this long followed by a break may be a console's hard wrap

SCOPE_TEXT = "text"
PATTERN_ACTIONS = ("restart", "open_driver_page", "reinstall_cuda_build", "switch_variant")  # action_for's names


# ---------------------------------------------------------------------------------------------
# Reading and cleaning what was pasted
# ---------------------------------------------------------------------------------------------


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_ANSI_REMAINS = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)?m")  # "[0;31m" when the ESC itself was lost
_LITERAL_ESC = re.compile(r"\\u001b|\\x1b|\\033|\\e(?=\[)", re.IGNORECASE)
_CHAR_MAP = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
    "\u00a0": " ", "\u3000": " ", "\u2009": " ", "\u202f": " ", "\u20a9": "\\", "\uffe6": "\\",
    "\uff1a": ":", "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "", "\u2013": "-", "\u2014": "-",
})


def _from_notebook(text: str) -> str | None:
    """The outputs (and sources) of a pasted .ipynb, as plain lines; None when it is not one."""
    stripped = text.lstrip()
    if not stripped.startswith("{") or '"cells"' not in stripped:
        return None
    try:
        doc = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        return None
    parts: list[str] = []

    def join(value: Any) -> str:
        return "".join(value) if isinstance(value, list) else str(value or "")

    for cell in doc["cells"]:
        if not isinstance(cell, dict):
            continue
        parts.append(join(cell.get("source")))
        for out in cell.get("outputs") or []:
            if not isinstance(out, dict):
                continue
            parts.append(join(out.get("text")))
            data = out.get("data")
            if isinstance(data, dict):
                parts.append(join(data.get("text/plain")))
            if out.get("ename"):
                parts.append(f"{out.get('ename')}: {out.get('evalue', '')}")
            parts.append("\n".join(str(x) for x in out.get("traceback") or []))
    return "\n".join(p for p in parts if p)


def clean_lines(text: str) -> list[str]:
    """The pasted text as clean lines (no colours, no CRs, ASCII quotes); blank lines kept."""
    text = text or ""
    notebook = _from_notebook(text)
    if notebook is not None:
        text = notebook
    text = _LITERAL_ESC.sub("\x1b", text)
    real_breaks = text.count("\n")
    if text.count("\\n") > max(3, real_breaks):  # a JSON-escaped paste (a notebook cell's "text")
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n").replace('\\"', '"')
    text = _ANSI.sub("", text)
    text = _ANSI_REMAINS.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CHAR_MAP)
    return [line.expandtabs(4).rstrip() for line in text.split("\n")]


class _Flat:
    """The cleaned lines joined into one line, whitespace collapsed; maps offsets back to lines."""

    def __init__(self, lines: list[str], glue_wrapped: bool = False) -> None:
        self.lines = lines
        pieces: list[str] = []
        self.starts: list[int] = []
        self.line_of: list[int] = []
        pos = 0
        previous_len = 0
        for index, line in enumerate(lines):
            piece = " ".join(line.split())
            if not piece:
                previous_len = 0
                continue
            glue = glue_wrapped and previous_len >= WRAP_MIN
            if pieces and not glue:
                pieces.append(" ")
                pos += 1
            self.starts.append(pos)
            self.line_of.append(index)
            pieces.append(piece)
            pos += len(piece)
            previous_len = len(line)
        self.text = "".join(pieces)

    def lines_between(self, start: int, end: int) -> tuple[int, int]:
        first = self.line_of[max(0, bisect.bisect_right(self.starts, start) - 1)] if self.starts else 0
        last = self.line_of[max(0, bisect.bisect_right(self.starts, max(start, end - 1)) - 1)] if self.starts else 0
        return first, last

    def evidence(self, start: int, end: int) -> str:
        first, last = self.lines_between(start, end)
        if last - first + 1 > MAX_EVIDENCE_LINES:
            last = first + MAX_EVIDENCE_LINES - 1
        quoted = "\n".join(line.strip() for line in self.lines[first:last + 1] if line.strip())
        if len(quoted) > MAX_EVIDENCE_CHARS:
            quoted = quoted[:MAX_EVIDENCE_CHARS - 1] + "…"
        return quoted


# ---------------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pattern:
    id: str
    severity: str
    regex: re.Pattern[str]
    variant: str | None = None
    action: str | None = None
    requires: tuple[re.Pattern[str], ...] = ()
    unless: tuple[re.Pattern[str], ...] = ()
    also: tuple[tuple[str, str, str | None], ...] = ()
    src: str = ""


class PatternDataError(ValueError):
    """failure_patterns.json is malformed (a bad regex, an unknown severity or context name)."""


def parse_patterns(doc: Mapping[str, Any]) -> list[Pattern]:
    if doc.get("schema") != PATTERNS_SCHEMA:
        raise PatternDataError(f"expected schema {PATTERNS_SCHEMA}, found {doc.get('schema')!r}")
    context = {name: re.compile(rx) for name, rx in (doc.get("context") or {}).items()}
    actions = set(PATTERN_ACTIONS) | set(doc.get("links") or {})

    def ref(item: str) -> re.Pattern[str]:
        return context[item] if item in context else re.compile(item)

    out: list[Pattern] = []
    for i, raw in enumerate(doc.get("patterns") or []):
        try:
            severity = raw["severity"]
            if severity not in SEVERITY_RANK:
                raise PatternDataError(f"pattern {i}: unknown severity {severity!r}")
            if raw.get("action") is not None and raw["action"] not in actions:
                raise PatternDataError(f"pattern {i}: unknown action {raw['action']!r}")
            also = tuple((a["id"], a["severity"], a.get("variant")) for a in raw.get("also") or [])
            out.append(Pattern(raw["id"], severity, re.compile(raw["regex"], re.IGNORECASE if "i" in raw.get("flags", "") else 0),
                               raw.get("variant"), raw.get("action"), tuple(ref(r) for r in raw.get("requires") or []),
                               tuple(ref(r) for r in raw.get("unless") or []), also, raw.get("src", "")))
        except (KeyError, re.error, TypeError) as exc:
            raise PatternDataError(f"pattern {i} ({raw.get('id') if isinstance(raw, dict) else raw!r}): {exc}") from exc
    return out


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    return tuple(parse_patterns(load_json(PATTERNS_FILE)))


@lru_cache(maxsize=1)
def links() -> dict[str, str]:
    """The web pages a pattern's action may open (``links`` in the pattern data): name → URL."""
    return dict(load_json(PATTERNS_FILE).get("links") or {})


def pattern_action(name: str | None) -> Action | None:
    """The action a pattern names: a page of ``links`` (opened after asking), else ``action_for``'s."""
    url = links().get(name or "")
    if url:
        return Action.of(ACTION_OPEN_URL, f"diagnosis.action.{name}.label", f"diagnosis.action.{name}.confirm", url=url)
    return action_for(name)


# ---------------------------------------------------------------------------------------------
# Recognising
# ---------------------------------------------------------------------------------------------
class _Collector:
    """One finding per failure mode: the most severe match wins, the first on a tie."""

    def __init__(self) -> None:
        self.found: dict[str, Diagnosis] = {}
        self.order: list[str] = []

    def add(self, finding: Diagnosis) -> None:
        have = self.found.get(finding.id)
        if have is None:
            self.found[finding.id] = finding
            self.order.append(finding.id)
        elif SEVERITY_RANK[finding.severity] < SEVERITY_RANK[have.severity]:
            self.found[finding.id] = finding

    def result(self) -> list[Diagnosis]:
        items = [self.found[i] for i in self.order]
        return sorted(items, key=lambda f: SEVERITY_RANK.get(f.severity, 9))


def _params(pattern: Pattern, match: re.Match[str]) -> dict[str, Any]:
    params = {k: v.strip() for k, v in match.groupdict().items() if v}
    if "found" in params:
        params["cuda"] = cuda_version_from_int(params["found"]) or params["found"]
    return params


def _match(pattern: Pattern, flats: tuple[_Flat, ...]) -> tuple[re.Match[str], _Flat] | None:
    for flat in flats:
        if any(not r.search(flat.text) for r in pattern.requires):
            continue
        if any(r.search(flat.text) for r in pattern.unless):
            continue
        found = pattern.regex.search(flat.text)
        if found:
            return found, flat
    return None


def recognise(text: str) -> list[Diagnosis]:
    """Every failure mode recognised in ``text``, most severe first, with evidence quoted."""
    lines = clean_lines(text)
    flat = _Flat(lines)
    flats = (flat, _Flat(lines, glue_wrapped=True))
    out = _Collector()
    for pattern in patterns():
        hit = _match(pattern, flats)
        if hit is None:
            continue
        found, where = hit
        evidence = where.evidence(found.start(), found.end())
        out.add(Diagnosis(pattern.id, pattern.severity, _params(pattern, found), evidence, pattern.variant,
                          action=pattern_action(pattern.action), scope=SCOPE_TEXT))
        for fid, severity, variant in pattern.also:
            out.add(Diagnosis(fid, severity, {}, evidence, variant, scope=SCOPE_TEXT))
    fields = parse_collect_env(lines)
    if fields is not None:
        for finding in collect_env_findings(fields):
            out.add(finding)
    versions = cuda_versions(flat)
    if fields is not None and versions.driver is None:
        versions.driver = _collect_env_driver_cuda(fields)
    for finding in version_findings(versions):
        out.add(finding)
    for finding in package_list_findings(lines):
        out.add(finding)
    from wizard.core.diagnosis.board_guard import guard  # a Jetson is never told to change its driver

    return guard(out.result(), flat.text)


# ---------------------------------------------------------------------------------------------
# collect_env reports
# ---------------------------------------------------------------------------------------------
COLLECT_ENV_LABELS = (
    "PyTorch version", "Is debug build", "CUDA used to build PyTorch", "ROCM used to build PyTorch", "OS",
    "GCC version", "Clang version", "CMake version", "Libc version", "Python version", "Python platform",
    "Is CUDA available", "CUDA runtime version", "CUDA_MODULE_LOADING set to", "GPU models and configuration",
    "Nvidia driver version", "cuDNN version", "Is XPU available", "HIP runtime version", "MIOpen runtime version",
    "Is XNNPACK available", "Caching allocator config",
)
_KEY_LABELS = {"PyTorch version", "CUDA used to build PyTorch", "Is CUDA available", "Nvidia driver version",
               "Python platform", "CUDA runtime version"}
_LABEL_LINE = re.compile(r"^\s*(?P<label>" + "|".join(re.escape(lbl) for lbl in COLLECT_ENV_LABELS) + r"):\s?(?P<value>.*)$")
_UNKNOWN = ("", "none", "could not collect", "no cuda", "n/a")


def parse_collect_env(lines: list[str]) -> dict[str, str] | None:
    """collect_env's ``Label: value`` fields (a multi-line GPU list joined with '; '), plus the
    ``[pip3]`` and ``[conda]`` lines under ``pip`` / ``conda``; None when the text has fewer than
    two of its key fields (then it is not a collect_env report)."""
    fields: dict[str, str] = {}
    current: str | None = None
    pip: list[str] = []
    conda: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("[pip3]") or stripped.startswith("[pip]"):
            pip.append(stripped)
            current = None
            continue
        if stripped.startswith("[conda]"):
            conda.append(stripped)
            current = None
            continue
        match = _LABEL_LINE.match(line)
        if match:
            current = match.group("label")
            fields[current] = match.group("value").strip()
            continue
        if current == "GPU models and configuration" and re.match(r"^\s*GPU \d+:", line):
            fields[current] = "; ".join(v for v in (fields[current], stripped) if v)
            continue
        current = None
    if len(_KEY_LABELS & set(fields)) < 2:
        return None
    fields["pip"] = "\n".join(pip)
    fields["conda"] = "\n".join(conda)
    return fields


def _known(value: str | None) -> str | None:
    return None if value is None or value.strip().lower() in _UNKNOWN else value.strip()


def _version_prefix(text: str | None) -> str | None:
    match = re.match(r"^\s*(\d+\.\d+(?:\.\d+)?)", text or "")
    return match.group(1) if match else None


def _driver_os(fields: Mapping[str, str]) -> str:
    platform = (fields.get("Python platform") or "") + " " + (fields.get("OS") or "")
    return "windows" if re.search(r"(?i)windows|microsoft|wsl", platform) else "linux"


def _python_os(fields: Mapping[str, str]) -> str:
    """The OS the Python runs on (WSL is Linux here, although its driver is the Windows one)."""
    platform = fields.get("Python platform") or fields.get("OS") or ""
    if re.search(r"(?i)^windows|microsoft windows", platform):
        return "windows"
    if re.search(r"(?i)macos|darwin", platform):
        return "macos"
    return "linux"


def _quote(fields: Mapping[str, str], *labels: str) -> str:
    return "\n".join(f"{label}: {fields[label]}" for label in labels if label in fields)


def collect_env_findings(fields: Mapping[str, str]) -> list[Diagnosis]:
    """The judgements that need several collect_env fields together."""
    out: list[Diagnosis] = []
    built = fields.get("CUDA used to build PyTorch")
    available = (fields.get("Is CUDA available") or "").strip().lower()
    driver = _version_prefix(_known(fields.get("Nvidia driver version")))
    torch_version = _known(fields.get("PyTorch version"))
    is_wsl = bool(re.search(r"(?i)microsoft|wsl", fields.get("Python platform") or ""))
    unavailable = available in ("false", "no")
    cuda_build = _version_prefix(_known(built))
    rocm_build = _known(fields.get("ROCM used to build PyTorch"))

    if torch_version and built is not None and cuda_build is None and not rocm_build and unavailable:
        severity = "error" if driver else "warning"
        out.append(Diagnosis("cpu-only-torch-installed", severity, {"torch": torch_version},
                             _quote(fields, "PyTorch version", "CUDA used to build PyTorch", "Is CUDA available",
                                    "Nvidia driver version"), "collect-env" if driver else "collect-env-no-driver",
                             action=action_for("reinstall_cuda_build"), scope=SCOPE_TEXT))
    if cuda_build and driver:
        driver_cuda = _collect_env_driver_cuda(fields)
        finding = _driver_vs_build(cuda_build, driver_cuda, driver,
                                   _quote(fields, "CUDA used to build PyTorch", "Nvidia driver version"))
        if finding is not None:
            out.append(finding)
    if cuda_build and unavailable and is_wsl:
        out.append(Diagnosis("wsl2-gpu-setup", "warning", {}, _quote(fields, "Python platform", "Is CUDA available"),
                             "text", scope=SCOPE_TEXT))
    python = _version_prefix(fields.get("Python version"))
    bits = re.search(r"\((\d+)-bit runtime\)", fields.get("Python version") or "")
    if python:
        verdict = python_support(python, _python_os(fields), bits=int(bits.group(1)) if bits else None)
        if verdict is not None:
            severity, variant, params = verdict
            installed = torch_version or re.search(r"^\[pip3?\] torch==", fields.get("pip") or "", re.MULTILINE)
            if installed and variant in ("too-old", "old-only"):
                # torch is installed and runs on this Python: only a newer torch needs a newer Python
                severity = "info"
            out.append(Diagnosis("python-version-unsupported", severity, params, _quote(fields, "Python version"),
                                 variant, scope=SCOPE_TEXT))
    return out


def _collect_env_driver_cuda(fields: Mapping[str, str]) -> str | None:
    """The highest CUDA of collect_env's "Nvidia driver version" (the table's conservative value)."""
    from wizard.core.recommend import compat

    driver = _version_prefix(_known(fields.get("Nvidia driver version")))
    return compat.load().cuda_for_driver(driver, _driver_os(fields)) if driver else None


def _driver_vs_build(build: str, driver_cuda: str | None, driver: str | None, evidence: str) -> Diagnosis | None:
    """torch.version.cuda against the driver's highest CUDA (see diagnose.driver_vs_build)."""
    severity = driver_vs_build(build, driver_cuda)
    if severity is None:
        return None
    return Diagnosis("driver-too-old-for-torch-cuda", severity,
                     {"cuda": driver_cuda, "build": build, "driver": driver or "?"}, evidence,
                     None if severity == "error" else "minor", action=action_for("open_driver_page"),
                     scope=SCOPE_TEXT)


def python_support(python: str, os_name: str, arch: str = "x86_64", bits: int | None = None
                   ) -> tuple[str, str, dict[str, str]] | None:
    """Is there a torch wheel for this Python? None: fine; else (severity, variant, params).

    The compatibility table decides: no release with wheels for it (error; too new or too old),
    or only releases older than the newest confirmed one (warning: an old torch only).
    """
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import MachineFacts

    if bits == 32:
        return "error", "32bit", {"python": python}
    try:
        facts = MachineFacts(os=os_name, arch=arch, python=python)
    except ValueError:
        return None
    kb = compat.load()
    with_wheels = [r for r in kb.releases if facts.python in r.pythons_on(facts.platform)]
    newest_verified = next((r for r in kb.releases if r.verified and r.pythons_on(facts.platform)), None)
    if newest_verified is None:
        return None
    pythons = sorted({p for r in kb.releases for p in r.pythons_on(facts.platform)}, key=Version)
    supported = sorted(newest_verified.pythons_on(facts.platform), key=Version)
    if not with_wheels:
        newest, oldest = supported[-1], supported[0]
        too_new = Version(facts.python) > Version(pythons[-1]) if pythons else False
        return "error", "too-new" if too_new else "too-old", {
            "python": facts.python, "use": _settled_python(supported) if too_new else oldest, "lowest": oldest,
            "highest": newest}
    if all(r.v < newest_verified.v for r in with_wheels):
        last = max(with_wheels, key=lambda r: r.v)
        # never the newest Python: a course's other packages lag behind torch, so the oldest one the
        # newest torch supports is the advice (a Python 3.10 user was told "use Python 3.15")
        return "warning", "old-only", {"python": facts.python, "torch": last.torch,
                                       "newest": newest_verified.torch, "use": supported[0]}
    return None


def _settled_python(supported: list[str]) -> str:
    """The Python to suggest in place of one that is too new: one behind the newest torch supports
    (the newest is days old when torch adds it, and most course packages have no wheels for it yet)."""
    return supported[-2] if len(supported) >= 3 else supported[-1]


# ---------------------------------------------------------------------------------------------
# The three CUDA versions
# ---------------------------------------------------------------------------------------------
_DRIVER_CUDA = (re.compile(r"CUDA Version: ?(?P<v>\d+\.\d+)"),
                re.compile(r"too old \(found version (?P<int>\d{4,6})\)"))
_TOOLKIT_CUDA = (re.compile(r"release (?P<v>\d+\.\d+), V\d+\.\d+"),
                 re.compile(r"Cuda compilation tools, release (?P<v>\d+\.\d+)"),
                 re.compile(r"CUDA runtime version: (?P<v>\d+\.\d+)"))
_TORCH_CUDA = (re.compile(r"CUDA used to build PyTorch: (?P<v>\d+\.\d+)"),
               re.compile(r"torch\.version\.cuda\)? ?(?:is|==|->|=>|:|=|returns?)? ?(?:Out\[\d+\]: )?['\"]?(?P<v>\d+\.\d+)"),
               re.compile(r"\b\d+\.\d+(?:\.\d+)?\+cu(?P<cu>\d{3,4})\b"))


@dataclass
class CudaVersions:
    driver: str | None = None  # the highest CUDA the driver supports (nvidia-smi "CUDA Version")
    toolkit: str | None = None  # nvcc, a separate install PyTorch wheels do not use
    torch: str | None = None  # torch.version.cuda, the runtime the wheel ships
    evidence: str = ""


def cuda_versions(flat: _Flat) -> CudaVersions:
    found = CudaVersions()
    quotes: list[tuple[int, int]] = []

    def first(regexes: Iterable[re.Pattern[str]]) -> str | None:
        for rx in regexes:
            match = rx.search(flat.text)
            if not match:
                continue
            groups = match.groupdict()
            if groups.get("int"):
                value = cuda_version_from_int(groups["int"])
            elif groups.get("cu"):
                cu = groups["cu"]
                value = f"{int(cu[:-1])}.{cu[-1]}"
            else:
                value = groups.get("v")
            if value:
                quotes.append((match.start(), match.end()))
                return value
        return None

    found.driver = first(_DRIVER_CUDA)
    found.toolkit = first(_TOOLKIT_CUDA)
    found.torch = first(_TORCH_CUDA)
    seen: list[str] = []
    for start, end in quotes:
        quote = flat.evidence(start, end)
        if quote not in seen:
            seen.append(quote)
    found.evidence = "\n".join(seen)
    return found


def version_findings(v: CudaVersions) -> list[Diagnosis]:
    """The real conflict (wheel newer than the driver) and the harmless confusion, from a paste."""
    out: list[Diagnosis] = []
    if v.torch and v.driver:
        finding = _driver_vs_build(v.torch, v.driver, None, v.evidence)
        if finding is not None:
            out.append(finding)
    known = [x for x in (v.driver, v.toolkit, v.torch) if x]
    if len(known) >= 2 and len(set(known)) > 1:
        out.append(Diagnosis("cuda-version-confusion", "info", cuda_version_params(v.driver, v.toolkit, v.torch),
                             v.evidence, scope=SCOPE_TEXT))
    return out


def cuda_version_params(driver: str | None, toolkit: str | None, torch: str | None) -> dict[str, Any]:
    na = msg("common.na")
    return {"driver": driver or na, "toolkit": toolkit or na, "torch": torch or na}


# ---------------------------------------------------------------------------------------------
# Pasted package lists (conda list / pip list / collect_env's [pip3] and [conda] lines)
# ---------------------------------------------------------------------------------------------
_CONDA_TORCH_ROW = re.compile(r"^\s*(?:\[conda\]\s*)?(?:pytorch|torch)\s+\d")


def package_list_findings(lines: list[str]) -> list[Diagnosis]:
    """torch from conda (a conda channel) and from pip in the same environment."""
    conda_rows = [ln for ln in lines if _CONDA_TORCH_ROW.match(ln) and "==" not in ln]
    conda_pkgs = parse_conda_list("\n".join(conda_rows))
    pip_pkgs = [p for p in parse_pip_list("\n".join(ln for ln in lines if "==" in ln)) if p.name == "torch"]
    from_conda = [p for p in conda_pkgs if p.channel != "pypi"]
    from_pip = pip_pkgs + [p for p in conda_pkgs if p.channel == "pypi"]
    if not (from_conda and from_pip):
        return []
    evidence = "\n".join(ln.strip() for ln in lines
                         if (_CONDA_TORCH_ROW.match(ln) or re.match(r"^\s*(?:\[pip3?\]\s*)?torch==", ln)))
    return [Diagnosis("conda-pip-torch-mixed", "error",
                      {"conda": f"{from_conda[0].name} {from_conda[0].version} ({from_conda[0].channel})",
                       "pip": f"torch {from_pip[0].version}"}, evidence[:MAX_EVIDENCE_CHARS], None,
                      scope=SCOPE_TEXT)]


__all__ = [
    "clean_lines", "recognise", "parse_collect_env", "collect_env_findings", "python_support",
    "cuda_versions", "version_findings", "CudaVersions", "Pattern", "patterns", "parse_patterns",
    "PatternDataError", "links", "pattern_action",
]
