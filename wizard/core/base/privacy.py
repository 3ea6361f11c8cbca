"""Hide what identifies a student before anything leaves the machine.

Reports and ``doctor --json`` are handed to teaching assistants and pasted into forums, so by
default the user name, home folder, host name, GPU UUIDs and the board's identifiers (serial
number, PDI, board/FRU part number, chassis serial, fabric GUID) are replaced -- in structured
fields by name, and inside every raw text too: a saved or remote nvidia-smi output (``-q``,
``-q -x``, ``--query-gpu`` CSV) reaches the JSON and the report appendices as it was written.
``include_private=True`` keeps them (the user asks for it explicitly).

Another machine's results (a Colab or cloud report, ``doctor --json`` or a pasted nvidia-smi added
with ``--add-remote``) carry *that* machine's home folder and user name, which this machine's
redactor does not know. :func:`remote_redactor` finds them in the remote's own texts -- home folders
(``/home/<x>``, ``/Users/<x>``, ``C:\\Users\\<x>``) and the ``home``/``user`` fields a document
records -- and hides each of them everywhere in that remote's record; every home folder path
becomes ``~``, whoever's it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
HIDDEN = "<hidden>"
# Board identifiers: the same in every report from one physical GPU, so they identify its owner.
# Structured fields by name (NVML, the parsers, a remote doctor JSON may carry any of them)...
_SERIAL_KEYS = {"serial", "gpu_serial", "board_part_number", "gpu_fru_part_number", "fru_part_number",
                "chassis_serial_number", "pdi", "gpu_pdi", "gpu_fabric_guid"}
# ...and the same identifiers inside raw nvidia-smi text, in each of its formats.
_Q_LABELS = ("Serial Number", "Chassis Serial Number", "GPU PDI", "Board Part Number", "FRU Part Number",
             "GPU Fabric GUID")
_Q_LINE = re.compile(r"^(?P<head>[ \t]*(?:" + "|".join(map(re.escape, _Q_LABELS)) + r")[ \t]*:[ \t]*)"
                     r"(?P<value>[^\r\n]*?)(?P<tail>[ \t]*)$", re.MULTILINE | re.IGNORECASE)
_XML_TAGS = ("serial", "chassis_serial_number", "gpu_pdi", "pdi", "board_part_number", "gpu_fru_part_number",
             "gpu_fabric_guid")
_XML_ELEMENT = re.compile(r"<(?P<tag>" + "|".join(_XML_TAGS) + r")>(?P<value>[^<]*)</(?P=tag)>", re.IGNORECASE)
_CSV_COLUMNS = {"serial", "gpu_serial", "platform.chassis_serial_number", "platform.gpu_fabric_guid"}
_CSV_HEADER_CELL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*(?:\s*\[[^\]]*\])?$")
# A header-less CSV row has no names: a cell of 10-16 digits there is a board serial (NVIDIA's are 13).
_SERIAL_CELL = re.compile(r"^\d{10,16}$")
_NOT_A_VALUE = re.compile(r"^\[?(?:N/A|Not Supported|Unknown Error|Requested functionality has been deprecated|)\]?$",
                          re.IGNORECASE)
_UUID_KEYS = {"uuid"}
_HOST_KEYS = {"hostname"}
# Machine-made identifiers: never rewritten (a host called "vm" must not turn "nvml" into "n<host>l").
_KEEP_KEYS = {"id", "schema", "severity", "status", "source", "variant", "generator"}


@dataclass
class Redactor:
    """Replace the identifying strings of one machine everywhere in a JSON-like value."""

    home: str | None = None
    user: str | None = None
    hostname: str | None = None

    def redact_text(self, text: str) -> str:
        out = text
        if self.home and len(self.home) > 3:
            for variant in {self.home, self.home.replace("\\", "/"), self.home.replace("/", "\\")}:
                out = out.replace(variant, "~")
        if self.user and len(self.user) > 1:
            out = re.sub(r"(?<![\w가-힣])" + re.escape(self.user) + r"(?![\w가-힣])", "<user>", out)
        if self.hostname and len(self.hostname) > 1:
            out = re.sub(r"(?<![\w.-])" + re.escape(self.hostname) + r"(?![\w-])", "<host>", out)
        out = redact_board_ids(out)
        return _UUID.sub(lambda m: f"{m.group(1)}-<hidden>", out)

    def redact(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.redact(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.redact(v, key) for v in value]
        if isinstance(value, str):
            if key in _KEEP_KEYS:
                return value
            if key in _SERIAL_KEYS or key in _UUID_KEYS:
                return HIDDEN
            if key in _HOST_KEYS:
                return "<host>"
            return self.redact_text(value)
        return value


def _hide(value: str) -> str:
    """``<hidden>`` for a real value; "N/A" and its kin say nothing and stay readable."""
    return value if _NOT_A_VALUE.match(value.strip()) else HIDDEN


def _csv_header(cells: list[str]) -> list[int] | None:
    """The positions of identifying columns when ``cells`` is a ``--query-*`` CSV header, else None."""
    if len(cells) < 2 or not all(_CSV_HEADER_CELL.match(c) for c in cells):
        return None
    names = [re.sub(r"\s*\[[^\]]*\]$", "", c).lower() for c in cells]
    return [i for i, name in enumerate(names) if name in _CSV_COLUMNS]


def _redact_csv(text: str) -> str:
    """Hide the serial columns of every CSV in ``text`` (by header, or by shape when it has none).

    A capture or a ``-l 1`` log holds several CSVs one after another, each with its own header;
    a row belongs to the header above it while it has the same number of cells."""
    if "," not in text:
        return text
    lines = text.split("\n")
    columns: list[int] | None = None
    width = 0
    for n, line in enumerate(lines):
        cells = [c.strip() for c in line.rstrip("\r").split(",")]
        header = _csv_header(cells)
        if header is not None:
            columns, width = header, len(cells)
            continue
        if columns is not None and len(cells) != width:
            columns = None
        if len(cells) < 3:
            continue
        hide = columns if columns is not None else [i for i, c in enumerate(cells) if _SERIAL_CELL.match(c)]
        if not any(_hide(cells[i]) == HIDDEN for i in hide):
            continue
        parts = line.split(",")
        for i in hide:  # keep the spacing around the cell, replace only its value
            value = parts[i].strip()
            if value and _hide(value) == HIDDEN:
                parts[i] = parts[i].replace(value, HIDDEN)
        lines[n] = ",".join(parts)
    return "\n".join(lines)


def redact_board_ids(text: str) -> str:
    """Hide GPU serial numbers, PDIs, board/FRU part numbers, chassis serials and fabric GUIDs in
    raw nvidia-smi text: the ``-q`` log, ``-q -x`` XML and ``--query-gpu`` CSV, alone or pasted
    together. Kept: N/A values, and everything else on the line, so the text still reads."""
    out = _Q_LINE.sub(lambda m: m.group("head") + _hide(m.group("value")) + m.group("tail"), text)
    out = _XML_ELEMENT.sub(lambda m: f"<{m.group('tag')}>{_hide(m.group('value'))}</{m.group('tag')}>", out)
    return _redact_csv(out)


# A home folder in a path: Linux, macOS, Windows (either slash); group 2 is the user's folder name.
_HOME_PATH = re.compile(r"(/home/|/Users/|\b[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2})([^/\\\s\"'<>:|*?,;()\[\]{}]+)")
_NOT_A_USER = {"public", "default", "shared", "all users", "default user", "~", "<user>", "user", "runner"}
_IDENTITY_KEYS = {"home", "home_dir", "user", "username", "user_name", "login"}


@dataclass
class RemoteRedactor(Redactor):
    """A redactor for another machine: its home folders and user names as found in its own texts
    (several: a cloud image may run as one user and keep files of another)."""

    users: tuple[str, ...] = ()

    def redact_text(self, text: str) -> str:
        out = text
        if self.home and len(self.home) > 3:  # the recorded home first, before its user name is replaced inside it
            for variant in {self.home, self.home.replace("\\", "/"), self.home.replace("/", "\\")}:
                out = out.replace(variant, "~")
        out = _HOME_PATH.sub("~", out)
        for user in self.users:
            out = re.sub(r"(?<![\w가-힣])" + re.escape(user) + r"(?![\w가-힣])", "<user>", out)
        return super().redact_text(out)


def _strings(value: Any, key: str | None = None, found: list[tuple[str | None, str]] | None = None,
             depth: int = 0) -> list[tuple[str | None, str]]:
    out = [] if found is None else found
    if depth > 60:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            _strings(v, str(k), out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, key, out, depth + 1)
    elif isinstance(value, str):
        out.append((key, value))
    return out


def remote_redactor(*values: Any, hostname: str | None = None) -> RemoteRedactor:
    """The redactor for a remote machine whose documents or texts are ``values``: the user names
    of every home folder path in them and of their ``home``/``user`` fields."""
    users: list[str] = []
    homes: list[str] = []
    for key, text in _strings(list(values)):
        if key in _IDENTITY_KEYS and text.strip():
            if "/" in text or "\\" in text:
                homes.append(text.strip())
                name = text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
            else:
                name = text.strip()
            if name and name.lower() not in _NOT_A_USER and name not in users and len(name) > 1:
                users.append(name)
        for match in _HOME_PATH.finditer(text):
            name = match.group(2)
            if name.lower() not in _NOT_A_USER and name not in users and len(name) > 1:
                users.append(name)
    users.sort(key=len, reverse=True)  # "kim2" before "kim"
    home = max(homes, key=len) if homes else None
    return RemoteRedactor(home=home, user=None, hostname=hostname, users=tuple(users))


def redactor_for(home: str | None, environ: dict[str, str] | Any, hostname: str | None) -> Redactor:
    """The redactor for this machine: home from the host, user from USERNAME/USER."""
    user = environ.get("USERNAME") or environ.get("USER") or None
    if not user and home:
        user = home.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    if user in ("root",):  # too common a word to hide; the home path still goes
        user = None
    return Redactor(home=home, user=user, hostname=hostname)
