"""The one way a test runs the command line without starting a process: ``run_cli(...)``.

Modelled on httpie's ``http()`` test helper: the real entry point (:func:`wizard.__main__.main`)
runs in this process with an injected :class:`wizard.cli.environment.Environment` (its own
stdin, stdout and stderr, the variables that point at the language and the stores, the working
folder, and the machine: a recorded host from tests/scenarios.py, or this one), and the result
carries the exit status, both outputs, and stdout parsed as JSON.

Starting ``python -m wizard`` costs an interpreter start-up and every import again for each call;
in-process, a call costs what the command itself does. Tests whose point is the process
(Ctrl+C, no Qt installed, start-up, the console's encoding, a frozen copy) still start one.
"""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from wizard.__main__ import main
from wizard.cli.environment import Environment
from wizard.core.base.host import Host


@dataclass
class CLIResult:
    """What one command did: its exit status and what it printed."""

    exit_status: int
    stdout: str
    stderr: str

    @property
    def returncode(self) -> int:
        """The exit status under subprocess's name, so a test reads the same either way."""
        return self.exit_status

    @property
    def json(self) -> Any:
        """stdout parsed as JSON (a ``--json`` command's document)."""
        return json.loads(self.stdout)


def _text_stream(data: bytes = b"") -> io.TextIOWrapper:
    """A UTF-8 text stream over bytes, with ``.buffer`` as a real stdin/stdout has."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)


def run_cli(*args: str, stdin: str | bytes | None = None, lang: str = "en",
            env: Mapping[str, str | None] | None = None, data_dir: str | os.PathLike[str] | None = None,
            cwd: str | os.PathLike[str] | None = None, host: Host | None = None) -> CLIResult:
    """Run ``gpu-setup-wizard ARGS`` in this process and return what it did.

    ``stdin``: what the command reads (text is sent as UTF-8; bytes as they are). ``lang``: the
    environment's language (``GSW_LANG``; ``--lang`` in ``args`` still wins). ``env``: variables
    set for the command (None removes one). ``data_dir``: where history is kept (``GSW_DATA_DIR``).
    ``host``: the machine the command detects and probes (a ``RecordedHost``); None is this one.
    """
    if any(str(a) == "pdf" or str(a).lower().endswith(".pdf") for a in args):
        _widgets_application()
    raw_in = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    out, err = _text_stream(), _text_stream()
    variables: dict[str, str | None] = {"GSW_LANG": lang, "PYTHONUTF8": "1", **(env or {})}
    if data_dir is not None:
        variables["GSW_DATA_DIR"] = str(Path(data_dir))
    environment = Environment(stdin=_text_stream(raw_in), stdout=out, stderr=err, environ=variables, cwd=cwd,
                              host=host)
    try:
        status = main([str(a) for a in args], env=environment)
    except SystemExit as exc:  # argparse's --help and usage errors
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if isinstance(exc.code, str):
            err.write(exc.code + "\n")
    return CLIResult(int(status), _read(out), _read(err))


def _widgets_application() -> None:
    """A PDF is drawn with Qt, which needs an application; left to itself, the export makes a
    QGuiApplication, this process's one Qt application for good, and a later test's window made
    on it aborts the process (tests/gui/test_in_process_pdf.py). A QApplication made first serves
    the export as well (it takes a running one). Without PySide6 the command says so itself."""
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError:
        return
    if QApplication.instance() is None:
        QApplication([sys.argv[0] if sys.argv else "pytest"])


def _read(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8", "replace").replace("\r\n", "\n")  # type: ignore[attr-defined]
