"""What a command reads and writes besides its arguments: the streams, the variables, the folder.

A command prints to ``sys.stdout``/``sys.stderr``, reads ``sys.stdin``, and finds its stores and
paths (history, install state, caches, the language) through environment variables such as
``GSW_DATA_DIR``, ``HOME``, ``XDG_*`` and ``GSW_LANG``, and probes the machine through a
:class:`~wizard.core.base.host.Host`. :class:`Environment` names those, so that
:func:`wizard.cli.entry.main` can run one command against others than the process's own: a test
runs the real command line in-process (as httpie's tests run ``http()`` with an injected
environment) instead of starting ``python -m wizard`` for every call, and an embedding program
can capture a command's output, and a test runs ``doctor`` or ``recommend`` on a recorded machine
(a Windows desktop with an RTX 3060, a driver mismatch) that this one is not. The default,
``None`` everywhere, is the real environment and this machine. A command asks for its machine
with :func:`current_host`.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Iterator, Mapping

if TYPE_CHECKING:
    from wizard.core.base.host import Host

# the machine of the environment a command runs in; None: this machine
_HOST: ContextVar[Host | None] = ContextVar("wizard_cli_host", default=None)


def current_host() -> Host:
    """The machine the running command probes: the injected environment's host, else this one
    (a fresh :class:`~wizard.core.base.host.RealHost`, as every command made before)."""
    host = _HOST.get()
    if host is not None:
        return host
    from wizard.core.base.host import RealHost

    return RealHost()


@dataclass
class Environment:
    """The streams, variables, working folder and machine one command runs with; ``None`` keeps
    the process's own. ``environ`` is applied on top of ``os.environ`` (a value of ``None`` removes
    the variable) for the command's duration, and everything is put back afterwards. ``host``:
    the machine the command detects and probes (:func:`current_host`); None is this machine."""

    stdin: IO[str] | None = None
    stdout: IO[str] | None = None
    stderr: IO[str] | None = None
    environ: Mapping[str, str | None] = field(default_factory=dict)
    cwd: str | os.PathLike[str] | None = None
    host: Host | None = None

    @contextmanager
    def applied(self) -> Iterator[None]:
        """Swap the process's streams, variables and folder for these while the block runs.

        The process has one set of each, so two commands cannot run this way at the same time
        on two threads (a test runs one command at a time)."""
        saved_streams = (sys.stdin, sys.stdout, sys.stderr)
        saved_environ = {name: os.environ.get(name) for name in self.environ}
        saved_cwd = os.getcwd() if self.cwd is not None else None
        host_token = _HOST.set(self.host)
        try:
            if self.stdin is not None:
                sys.stdin = self.stdin
            if self.stdout is not None:
                sys.stdout = self.stdout
            if self.stderr is not None:
                sys.stderr = self.stderr
            _set_variables(self.environ)
            if self.cwd is not None:
                os.chdir(self.cwd)
            yield
        finally:
            for stream in (self.stdout, self.stderr):
                if stream is not None:
                    try:
                        stream.flush()
                    except (OSError, ValueError):
                        pass
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            _HOST.reset(host_token)
            _set_variables(saved_environ)
            if saved_cwd is not None:
                os.chdir(saved_cwd)


def _set_variables(values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = str(value)
