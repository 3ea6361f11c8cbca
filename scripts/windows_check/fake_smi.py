"""A stand-in ``nvidia-smi.exe`` that answers from a recorded Windows capture, built with mingw.

The Windows check runs the *installed* wizard's ``doctor --json`` with this program on PATH, so
the real Windows path is exercised: the wizard finds ``nvidia-smi.exe`` with its own search,
starts it as a Windows process (console flags, pipes), reads its bytes and decodes them, and
parses the Windows-only fields (``Driver-Model`` WDDM in the table, ``driver_model.current``).

Every answer is cut from one capture of a real nvidia-smi on Windows 11 (GeForce RTX 2080 SUPER,
driver 591.86), byte for byte. The wizard's CSV query asks other columns than the capture's, so
that answer is the capture's CSV row with the asked columns picked and their units dropped, as
``--format=csv,noheader,nounits`` does; a field the capture does not have is refused with the
real program's message and exit code. The program writes in text mode, so each LF goes out as
CRLF, as the real (MSVC-built) one does; the capture is ASCII, the same bytes in every code page.

Usage (host Python): ``python fake_smi.py CAPTURE OUT.exe`` (needs x86_64-w64-mingw32-gcc and the
wizard's source tree for the query fields).
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SECTION = re.compile(r"^#{80}\n# (?P<title>[^\n]+)\n# \$ (?P<cmd>[^\n]*)\n(?:#[^\n]*\n)*?#{80}\n", re.MULTILINE)
INVALID_ARGS = "\nInvalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n"
# --query-gpu aliases the wizard asks for -> the capture's column name
ALIASES = {"clocks.gr": "clocks.current.graphics", "clocks.sm": "clocks.current.sm",
           "clocks.mem": "clocks.current.memory"}


@dataclass
class Answer:
    """What the stand-in prints for one argv (after the program name)."""

    argv: tuple[str, ...]
    stdout: str
    exit_code: int = 0


def sections(capture: str, state: str = "idle") -> dict[str, str]:
    """``title -> raw output`` for one state (``idle``/``load``) and the capabilities."""
    found: dict[str, str] = {}
    matches = list(SECTION.finditer(capture))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(capture)
        body = capture[m.end():end]
        if body.endswith("\n\n\n"):  # sections are separated by two blank lines
            body = body[:-2]
        kind, _, title = m.group("title").partition(" :: ")
        if kind in (state, "capabilities"):
            found[title.strip()] = body
    return found


def csv_answer(raw_csv: str, fields: list[str]) -> Answer:
    """The capture's CSV row, the asked columns only, units dropped (``csv,noheader,nounits``)."""
    rows = list(csv.reader(line for line in raw_csv.splitlines() if line.strip()))
    header = [h.strip() for h in rows[0]]
    names = {h.split(" [", 1)[0]: i for i, h in enumerate(header)}
    out_rows = []
    for row in rows[1:]:
        values = []
        for field in fields:
            col = names.get(ALIASES.get(field, field))
            if col is None:
                return Answer((), f'Field "{field}" is not a valid field to query.\n\n', 2)
            value = row[col].strip()
            unit = header[col].partition(" [")[2].rstrip("]")
            if unit and value.endswith(" " + unit):
                value = value[: -len(unit) - 1]
            values.append(value)
        out_rows.append(", ".join(values) + "\n")
    return Answer((), "".join(out_rows))


def answers(capture: str, query_sets: list[list[str]]) -> list[Answer]:
    parts = sections(capture)
    table = parts["nvidia-smi (default table)"]
    found = [Answer((), table), Answer(("-q",), parts["query (-q)"]),
             Answer(("--version",), parts["version"]), Answer(("-L",), parts["list (-L)"])]
    csv_text = parts["query-gpu (csv, what the exporter parses)"]
    for fields in query_sets:
        ans = csv_answer(csv_text, fields)
        ans.argv = ("--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits")
        found.append(ans)
    return found


def c_string(text: str) -> str:
    data = text.encode("ascii")
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92, 63) else f"\\{b:03o}" for b in data) + '"'


def c_source(found: list[Answer]) -> str:
    """A C program: join argv[1:] with US (0x1f), look the line up, print its answer."""
    rows = []
    for ans in found:
        key = "\x1f".join(ans.argv)
        rows.append(f"  {{{c_string(key)}, {c_string(ans.stdout)}, {len(ans.stdout.encode())}, {ans.exit_code}}},")
    return "\n".join([
        "#include <stdio.h>", "#include <string.h>", "#include <stdlib.h>",
        "struct answer { const char *argv; const char *out; size_t len; int code; };",
        "static const struct answer ANSWERS[] = {", *rows, "};",
        "int main(int argc, char **argv) {",
        "  size_t need = 1; for (int i = 1; i < argc; i++) need += strlen(argv[i]) + 1;",
        "  char *key = calloc(need, 1); for (int i = 1; i < argc; i++) { if (i > 1) strcat(key, \"\\037\");"
        " strcat(key, argv[i]); }",
        "  for (size_t i = 0; i < sizeof ANSWERS / sizeof ANSWERS[0]; i++)",
        "    if (strcmp(key, ANSWERS[i].argv) == 0) {",
        "      fwrite(ANSWERS[i].out, 1, ANSWERS[i].len, stdout); fflush(stdout); return ANSWERS[i].code; }",
        f"  fputs({c_string(INVALID_ARGS)}, stdout); return 255;",
        "}", ""])


def build(capture_path: Path, out_exe: Path, query_sets: list[list[str]]) -> list[Answer]:
    found = answers(capture_path.read_text(encoding="ascii"), query_sets)
    out_exe.parent.mkdir(parents=True, exist_ok=True)
    src = out_exe.with_suffix(".c")
    src.write_text(c_source(found), encoding="ascii")
    subprocess.run(["x86_64-w64-mingw32-gcc", "-O1", "-s", "-o", str(out_exe), str(src)], check=True,
                   capture_output=True, timeout=300)
    return found


def wizard_query_sets(repo: Path) -> list[list[str]]:
    """The field lists the wizard asks for (current and old-driver fallback), from its source."""
    sys.path.insert(0, str(repo))
    from wizard.core.machine import nvidia_smi

    return [list(nvidia_smi.QUERY_FIELDS), list(nvidia_smi.FALLBACK_FIELDS)]


if __name__ == "__main__":
    repo_root = Path(__file__).resolve().parents[2]
    for a in build(Path(sys.argv[1]), Path(sys.argv[2]), wizard_query_sets(repo_root)):
        print(f"{' '.join(a.argv) or '(no arguments)'}: {len(a.stdout)} chars, exit {a.exit_code}")
