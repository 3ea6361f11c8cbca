"""Hide what identifies a student before anything leaves the machine.

Reports and ``doctor --json`` are handed to teaching assistants and pasted into forums, so by
default the user name, home folder, host name, GPU UUIDs and serial numbers are replaced.
``include_private=True`` keeps them (the user asks for it explicitly).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_SERIAL_KEYS = {"serial"}
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
                return "<hidden>"
            if key in _HOST_KEYS:
                return "<host>"
            return self.redact_text(value)
        return value


def redactor_for(home: str | None, environ: dict[str, str] | Any, hostname: str | None) -> Redactor:
    """The redactor for this machine: home from the host, user from USERNAME/USER."""
    user = environ.get("USERNAME") or environ.get("USER") or None
    if not user and home:
        user = home.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    if user in ("root",):  # too common a word to hide; the home path still goes
        user = None
    return Redactor(home=home, user=user, hostname=hostname)
