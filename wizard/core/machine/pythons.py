"""Find the Python interpreters on this machine, and ask each what it is.

A student's PC often has several: python.org installs found by the ``py`` launcher, one on
PATH, pyenv or uv builds, the distribution's ``/usr/bin/python3`` (PEP 668 "externally
managed": pip refuses to install into it), and the Microsoft Store's fake ``python.exe``
that only opens the Store. The wizard needs each one's real version, architecture and bits
(PyTorch has no 32-bit or x86_64-macOS wheels for current releases), so every candidate is
*run* once with a tiny script; file names and launcher listings are only where to look.

The script is kept to syntax and modules that CPython 2.7 and 3.2+ all have, so an old
interpreter still reports its version instead of failing with a SyntaxError.

Speed (issue 17): the queries run in parallel, as many at once as there are CPUs; two names of one
file (``/usr/bin/python3`` → ``python3.11``) are asked once; an answer is reused from the cache while
the executable is unchanged (:mod:`wizard.core.machine.python_cache`); and pyenv's shims are not run
at all — each is a bash script that starts pyenv (140–200 ms, exit 127 for a version not installed),
and the versions behind them are found directly under ``$PYENV_ROOT/versions``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.host import Host
from wizard.core.machine.models import PythonInterpreter
from wizard.core.machine.python_cache import FactsCache, Identity, identity, real_file_system
from wizard.core.machine.system import host_paths

if TYPE_CHECKING:  # the process runner loads only when an interpreter is really run (issue 17)
    from wizard.core.base.host import CommandResult

QUERY_TIMEOUT = 20.0  # the first start of an interpreter on Windows (antivirus scan) is slow
LIST_TIMEOUT = 15.0
MAX_PARALLEL_QUERIES = 8

SOURCE_ORDER = ("current", "py-launcher", "path", "common", "uv", "conda")

# One line of Python that runs on 2.7 and 3.2+; prints one JSON object.
# ``-E -s``: ignore PYTHON* variables and the user site, which can break or slow a start.
QUERY_MARKER = "gsw_python_query"
QUERY_SCRIPT = (
    "import json, os, platform, sys, sysconfig; "
    "b = getattr(sys, 'real_prefix', None) or getattr(sys, 'base_prefix', sys.prefix); "
    "s = sysconfig.get_paths().get('stdlib') or ''; "
    "print(json.dumps({'" + QUERY_MARKER + "': 1, "
    "'executable': sys.executable, "
    "'realpath': os.path.realpath(sys.executable) if sys.executable else '', "
    "'prefix': sys.prefix, "
    "'version': platform.python_version(), "
    "'machine': platform.machine(), "
    "'bits': 64 if sys.maxsize > 2 ** 32 else 32, "
    "'implementation': platform.python_implementation(), "
    "'venv': sys.prefix != b, "
    "'externally_managed': bool(s) and os.path.isfile(os.path.join(s, 'EXTERNALLY-MANAGED'))}))"
)
QUERY_ARGS = ["-E", "-s", "-c", QUERY_SCRIPT]

_LINUX_PY_NAME = re.compile(r"^python3(\.\d{1,2})?$")
_PATH_NAMES = ["python3", "python"] + [f"python3.{minor}" for minor in range(8, 15)]


@dataclass
class _Candidate:
    path: str
    source: str
    ident: Identity | None = None


# ------------------------------------------------------------------------ pure parsers


def parse_py_launcher(text: str) -> list[str]:
    """Interpreter paths from ``py -0p``, in the launcher's order.

    Two formats exist. The launcher before Python 3.11 prints `` -3.11-64        C:\\...\\python.exe``
    (and a trailing `` *`` for the default, written to stderr); the 3.11+ launcher prints
    `` -V:3.11 *        C:\\...\\python.exe`` with the ``*`` after the tag, and
    ``-V:Company/Tag`` for other distributions. Paths may contain spaces and Hangul.
    """
    paths: list[str] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line.startswith("-") and not line.startswith("*"):
            continue  # header ("Installed Pythons found by ..."), "No Installed Pythons Found!"
        match = re.search(r"(?:[A-Za-z]:\\|\\\\)", line)
        if not match:
            continue
        rest = line[match.start():].rstrip()
        if rest.endswith(" *"):
            rest = rest[:-2].rstrip()
        exe = re.match(r"(.*?\.exe)(?:\s|$)", rest, re.IGNORECASE)
        path = exe.group(1) if exe else rest
        if not path.lower().endswith(".exe"):
            path = path.rstrip("\\") + "\\python.exe"  # an install dir without an executable
        if path not in paths:
            paths.append(path)
    return paths


def parse_uv_python_list(text: str) -> list[str]:
    """Interpreter paths from ``uv python list --only-installed --output-format json``."""
    try:
        data = json.loads(text or "")
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [str(item["path"]) for item in data if isinstance(item, dict) and item.get("path")]


def parse_query_output(text: str) -> dict[str, Any] | None:
    """The query script's JSON object, or None when the output is not that.

    The last matching line wins: a ``sitecustomize`` may print before it.
    """
    for line in reversed((text or "").splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get(QUERY_MARKER) == 1:
            return data
    return None


def is_store_alias(path: str) -> bool:
    """The Microsoft Store's ``python.exe``/``python3.exe`` stub in ``...\\WindowsApps``.

    Running it opens the Store (or prints "Python was not found"). A Python really installed
    from the Store lives in a ``PythonSoftwareFoundation.Python.3.x_...`` folder below
    WindowsApps, or as ``python3.x.exe``, and is kept.
    """
    norm = path.replace("/", "\\").lower().rstrip("\\")
    folder, _, name = norm.rpartition("\\")
    return folder.endswith("\\microsoft\\windowsapps") and name in ("python.exe", "python3.exe")


# --------------------------------------------------------------------------- discovery


def find_pythons(host: Host) -> list[PythonInterpreter]:
    """Every Python interpreter found, each queried once; newest version first.

    Interpreters that could not be queried are kept with ``error`` set (a student should
    see that ``python`` on PATH is broken). Two candidates are the same interpreter when
    they report the same resolved executable and the same ``sys.prefix`` (a venv shares its
    base's executable but is a different environment).
    """
    candidates = _dedupe_candidates(host, _candidates(host))
    if not candidates:
        return []
    cache = FactsCache() if real_file_system(host) else None
    # What the cache answers costs a stat or two; only the rest start a process, in parallel
    # (and only then are threads and the process runner loaded).
    answers: list[tuple[PythonInterpreter, tuple[str, str] | None] | None] = []
    missing: list[tuple[int, _Candidate, Identity | None]] = []
    for i, cand in enumerate(candidates):
        ident = cand.ident if cand.ident is not None or cache is None else identity(host, cand.path)
        data = cache.get(ident) if cache is not None else None
        answers.append(None if data is None else _interpreter(host, cand.path, cand.source, data))
        if data is None:
            missing.append((i, cand, ident))
    if missing:
        from concurrent.futures import ThreadPoolExecutor

        workers = min(MAX_PARALLEL_QUERIES, max(2, os.cpu_count() or 2), len(missing))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            queried = list(pool.map(lambda m: _run_query(host, m[1].path, m[1].source, cache, m[2]), missing))
        for (i, _cand, _ident), answer in zip(missing, queried):
            answers[i] = answer
    if cache is not None:
        cache.save()

    seen: set[tuple[str, str]] = set()
    found: list[PythonInterpreter] = []
    for slot in answers:
        assert slot is not None  # every slot is filled by now
        interp, key = slot
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        found.append(interp)
    # newest version first, unknown versions last; equal versions keep the source order
    found.sort(key=_source_rank)
    found.sort(key=_version_key, reverse=True)
    return found


def query_interpreter(host: Host, path: str, source: str, cache: FactsCache | None = None,
                      ident: Identity | None = None) -> tuple[PythonInterpreter, tuple[str, str] | None]:
    """Run ``path`` once with the query script (or take its unchanged answer from ``cache``); the
    interpreter and its identity key."""
    if cache is not None and ident is None:
        ident = identity(host, path)
    data = cache.get(ident) if cache is not None else None
    if data is not None:
        return _interpreter(host, path, source, data)
    return _run_query(host, path, source, cache, ident)


def _run_query(host: Host, path: str, source: str, cache: FactsCache | None,
               ident: Identity | None) -> tuple[PythonInterpreter, tuple[str, str] | None]:
    """Start ``path`` with the query script; its answer goes into ``cache`` under ``ident``."""
    res = host.run([path, *QUERY_ARGS], timeout=QUERY_TIMEOUT)
    data = parse_query_output(res.stdout) if res.returncode == 0 and not res.timed_out else None
    if data is None:
        interp = PythonInterpreter(path=path, source=source)
        interp.error = _describe_failure(res, QUERY_TIMEOUT)
        return interp, None
    if cache is not None:
        cache.put(ident, data)
    return _interpreter(host, path, source, data)


def _interpreter(host: Host, path: str, source: str,
                 data: dict[str, Any]) -> tuple[PythonInterpreter, tuple[str, str] | None]:
    """The interpreter and its identity key from one query answer (run now or cached)."""
    interp = PythonInterpreter(path=path, source=source)
    interp.version = _str(data.get("version"))
    interp.arch = _str(data.get("machine"))
    interp.bits = data.get("bits") if isinstance(data.get("bits"), int) else None
    interp.implementation = _str(data.get("implementation"))
    interp.is_venv = bool(data.get("venv"))
    # PEP 668: the marker does not apply inside a virtual environment.
    interp.externally_managed = bool(data.get("externally_managed")) and not interp.is_venv
    paths = host_paths(host)
    real = _str(data.get("realpath")) or _str(data.get("executable")) or path
    prefix = _str(data.get("prefix")) or ""
    key = (paths.normcase(paths.normpath(real)), paths.normcase(paths.normpath(prefix)) if prefix else "")
    return interp, key


def _describe_failure(res: CommandResult, timeout: float) -> str:
    """Short raw text for why an interpreter could not be queried (kept for the report)."""
    if res.timed_out:
        return f"timed out after {timeout:.0f} s"
    if res.error:
        return res.error
    if res.returncode != 0:
        detail = _telling_line(res.stderr) or _telling_line(res.stdout)
        return f"exit code {res.returncode}" + (f": {detail}" if detail else "")
    sample = (res.stdout or "").strip().replace("\n", " ")[:200]
    return f"unexpected output: {sample!r}" if sample else "no output"


def _candidates(host: Host) -> Iterable[_Candidate]:
    facts = host.platform_facts()
    current = facts.get("python_executable")
    if current and not facts.get("frozen"):  # a frozen bundle's executable is not a Python
        yield _Candidate(str(current), "current")
    if host.os_name == "windows":
        py = host.which("py")
        if py:
            res = host.run([py, "-0p"], timeout=LIST_TIMEOUT)
            # the old launcher writes entries to stdout and the header/default mark to stderr
            for path in parse_py_launcher(res.stdout + "\n" + res.stderr):
                yield _Candidate(path, "py-launcher")
    for name in _PATH_NAMES:
        found = host.which(name)
        if found:
            yield _Candidate(found, "path")
    for path in _common_paths(host):
        yield _Candidate(path, "common")
    for path in _uv_paths(host):
        yield _Candidate(path, "uv")


def _dedupe_candidates(host: Host, candidates: Iterable[_Candidate]) -> list[_Candidate]:
    """One candidate per interpreter: the same path, or (on the real file system) the same file
    under another name, is asked once; Store aliases, the macOS CLT stub and pyenv shims not at all."""
    paths = host_paths(host)
    seen: set[str] = set()
    kept = []
    shims = _pyenv_shim_dirs(host)
    for cand in candidates:
        if host.os_name == "windows" and is_store_alias(cand.path):
            continue
        if host.os_name == "macos" and _is_macos_clt_stub(host, cand.path):
            continue
        if paths.normcase(paths.dirname(paths.normpath(cand.path))) in shims:
            continue
        key = paths.normcase(paths.normpath(cand.path))
        cand.ident = identity(host, cand.path)
        if key in seen or (cand.ident is not None and cand.ident.key in seen):
            continue
        seen.add(key)
        if cand.ident is not None:
            seen.add(cand.ident.key)
        kept.append(cand)
    return kept


def _pyenv_shim_dirs(host: Host) -> set[str]:
    """pyenv's (and pyenv-win's) shims folders: scripts that start pyenv, never an interpreter."""
    paths = host_paths(host)
    root = host.getenv("PYENV_ROOT") or paths.join(host.home(), ".pyenv")
    dirs = {paths.join(root, "shims"), paths.join(host.home(), ".pyenv", "shims"),
            paths.join(host.home(), ".pyenv", "pyenv-win", "shims")}
    if host.getenv("PYENV"):  # pyenv-win sets PYENV to its pyenv-win folder
        dirs.add(paths.join(host.getenv("PYENV") or "", "shims"))
    return {paths.normcase(paths.normpath(d)) for d in dirs}


def _is_macos_clt_stub(host: Host, path: str) -> bool:
    """/usr/bin/python3 on a Mac without the Command Line Tools pops up an install dialog."""
    if path != "/usr/bin/python3":
        return False
    return not (host.exists("/Library/Developer/CommandLineTools/usr/bin/python3")
                or host.exists("/Applications/Xcode.app/Contents/Developer/usr/bin/python3"))


def _common_paths(host: Host) -> list[str]:
    paths = host_paths(host)
    home = host.home()
    found: list[str] = []

    def add_matching(folder: str, pattern: re.Pattern[str], *tail: str) -> None:
        for entry in host.listdir(folder):
            if pattern.match(entry):
                exe = paths.join(folder, entry, *tail)
                if host.exists(exe):
                    found.append(exe)

    if host.os_name == "windows":
        py3_dir = re.compile(r"^python3\d*(-32|-arm64)?$", re.IGNORECASE)
        local = host.getenv("LOCALAPPDATA") or paths.join(home, "AppData", "Local")
        add_matching(paths.join(local, "Programs", "Python"), py3_dir, "python.exe")
        add_matching((host.getenv("SystemDrive") or "C:") + "\\", py3_dir, "python.exe")
        program_files = host.getenv("ProgramFiles") or "C:\\Program Files"
        add_matching(program_files, py3_dir, "python.exe")
        pyenv_win = paths.join(home, ".pyenv", "pyenv-win", "versions")
        add_matching(pyenv_win, re.compile(r"^\d"), "python.exe")
        return found

    if host.os_name == "macos":
        frameworks = "/Library/Frameworks/Python.framework/Versions"
        add_matching(frameworks, re.compile(r"^\d+\.\d+$"), "bin", "python3")
        for folder in ("/opt/homebrew/bin", "/usr/local/bin"):
            add_matching(folder, _LINUX_PY_NAME)
    else:
        for folder in ("/usr/bin", "/usr/local/bin"):
            add_matching(folder, _LINUX_PY_NAME)
    pyenv_root = host.getenv("PYENV_ROOT") or paths.join(home, ".pyenv")
    add_matching(paths.join(pyenv_root, "versions"), re.compile(r"^[^.]"), "bin", "python")
    return found


def _uv_paths(host: Host) -> list[str]:
    paths = host_paths(host)
    found: list[str] = []
    uv = host.which("uv")
    if uv:
        res = host.run([uv, "python", "list", "--only-installed", "--output-format", "json"],
                       timeout=LIST_TIMEOUT)
        if res.ok:
            found.extend(parse_uv_python_list(res.stdout))
    install_dir = host.getenv("UV_PYTHON_INSTALL_DIR")
    if not install_dir:
        if host.os_name == "windows":
            appdata = host.getenv("APPDATA") or paths.join(host.home(), "AppData", "Roaming")
            install_dir = paths.join(appdata, "uv", "python")
        else:
            data_home = host.getenv("XDG_DATA_HOME") or paths.join(host.home(), ".local", "share")
            install_dir = paths.join(data_home, "uv", "python")
    tail = ("python.exe",) if host.os_name == "windows" else ("bin", "python3")
    for entry in host.listdir(install_dir):
        if entry.startswith("."):  # .lock, .cache, .temp
            continue
        exe = paths.join(install_dir, entry, *tail)
        if host.exists(exe):
            found.append(exe)
    return found


def _version_key(interp: PythonInterpreter) -> tuple[bool, Version]:
    try:
        return True, Version(interp.version or "")
    except InvalidVersion:
        return False, Version("0")


def _source_rank(interp: PythonInterpreter) -> int:
    return SOURCE_ORDER.index(interp.source) if interp.source in SOURCE_ORDER else len(SOURCE_ORDER)


def _telling_line(text: str | None) -> str:
    """The line that says what went wrong: a traceback's last line, else the first line
    (pyenv's "pyenv: python3.9: command not found" is followed by a long explanation)."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    if not lines:
        return ""
    line = lines[-1] if lines[0].startswith("Traceback") else lines[0]
    return line[:300]


def _str(value: Any) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    return value or None


__all__ = [
    "QUERY_ARGS",
    "QUERY_SCRIPT",
    "find_pythons",
    "is_store_alias",
    "parse_py_launcher",
    "parse_query_output",
    "parse_uv_python_list",
    "query_interpreter",
]
