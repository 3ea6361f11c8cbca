"""Where PyTorch goes: the one rule that turns a student's choice into an install target, for
the Environment page and ``gpu-setup-wizard install`` alike.

Why one rule: the window and the command line each had their own, and they disagreed (a
uv-managed Python without uv was refused by one and failed half-way in the other; a new conda
env took its Python from the recommendation in one and from the build in the other). Both faces
now describe the choice as a :class:`TargetChoice` -- the window from its controls, the command
line from ``--venv``/``--conda-env``/``--python`` -- and :func:`resolve_target` answers with the
target, why there is none, or the unfinished install it continues.

Also here: the interpreters a new venv can be made from, each with whether it fits the chosen
build (:func:`python_options`: a Python too old for the torch is said so, not offered as if it
worked), the lists the window shows, and removing an environment the wizard made.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wizard.app.install import INSTALLER_AUTO, new_venv_target, unfinished_at
from wizard.core.base.i18n import Message, msg
from wizard.core.install.environments import (
    KIND_EXISTING_PYTHON,
    EnvTarget,
    existing_conda_env,
    existing_python,
    existing_targets,
    existing_venv,
    find_uv,
    new_conda_env,
)

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from wizard.app.reuse import ReuseOffer
    from wizard.app.session import Session
    from wizard.core.base.deletion import DeletePlan
    from wizard.core.base.host import Host
    from wizard.core.install.recovery import EnvState, StateStore
    from wizard.core.machine.models import CondaEnv, CondaInstall, Detection, PythonInterpreter
    from wizard.core.recommend.choose_python import PythonChoice
    from wizard.core.recommend.recommender import Candidate

# What the student chose (the window's modes; the command line's options map onto them)
MODE_NEW_VENV = "new-venv"
MODE_EXISTING = "existing"
MODE_NEW_CONDA = "new-conda"
MODE_EXISTING_CONDA = "existing-conda"
MODE_RESUME = "resume"
MODE_SKIP = "skip"  # PyTorch is already there (the re-run after a driver update): straight to Verify
MODES = (MODE_RESUME, MODE_NEW_VENV, MODE_EXISTING, MODE_NEW_CONDA, MODE_EXISTING_CONDA, MODE_SKIP)


@dataclass
class TargetChoice:
    """A choice of target, as either face has it.

    ``path``: the new venv's folder (or an existing venv's); ``python``: an interpreter's path,
    or an "X.Y" version uv installs, or "" for the recommendation's; ``existing``: a listed
    environment (the window's list); ``conda_name``: a new conda env's name, or an existing one's
    name or prefix; ``conda_env``: an ``(env, conda)`` pair the window listed; ``resume``: the
    unfinished install's state; ``check_python``: ask a named interpreter whether it runs
    (the command line; the window lists only interpreters the detection has asked)."""

    mode: str
    path: str = ""
    python: str = ""
    existing: EnvTarget | None = None
    conda_name: str = ""
    conda_env: tuple[CondaEnv, CondaInstall] | None = None
    resume: EnvState | None = None
    installer: str = INSTALLER_AUTO
    check_python: bool = False


@dataclass
class TargetAnswer:
    """The target (None: none yet), why not (a Message), the unfinished install it continues,
    and the target's Python as "X.Y" when known before the recommendation."""

    target: EnvTarget | None = None
    problem: Message | None = None
    resume_state: EnvState | None = None
    python_version: str | None = None
    interpreter: PythonInterpreter | None = None  # the recommendation's interpreter, when the target is made from it


def is_version(text: str | None) -> bool:
    """"3.12" or "3.12.1": a version uv installs, not an interpreter's path."""
    return bool(text) and bool(re.fullmatch(r"\d+\.\d+(\.\d+)?", (text or "").strip()))


def minor(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version


def recommended_python(recommendation: PythonChoice | None, candidate: Candidate | None) -> str | None:
    """The Python version the recommendation chose ("3.12"), else the build's."""
    return getattr(recommendation, "version", None) or getattr(candidate, "python", None)


def venv_mode(path: str) -> str:
    """The command line's ``--venv PATH``: the environment there when it is one, else a new one."""
    full = os.path.abspath(os.path.expanduser(path))
    return MODE_EXISTING if os.path.isfile(os.path.join(full, "pyvenv.cfg")) else MODE_NEW_VENV


def resolve_target(choice: TargetChoice, host: Host, store: StateStore, *,
                   recommendation: PythonChoice | None = None, candidate: Candidate | None = None,
                   condas: list[CondaInstall] | None = None, uv_exe: str | None = None) -> TargetAnswer:
    """The one rule: the target ``choice`` describes, or why there is none.

    A folder where the wizard's own install stopped continues that install (both faces). A new
    venv's Python: the named interpreter, the named version (uv installs it: refused up front
    when uv is not there), else the recommendation's interpreter, else its version through uv.
    A new conda env's Python: the named version, else the recommendation's. ``recommendation``
    None: what needs it is left open (``target`` None, no problem), for the command line that
    recommends for the target's Python afterwards."""
    mode = choice.mode
    if mode == MODE_SKIP:
        return TargetAnswer()
    if mode == MODE_RESUME:
        state = choice.resume
        if state is None:
            return TargetAnswer(problem=msg("environment.resume.none"))
        target = state.env_target()
        return TargetAnswer(target, resume_state=state, python_version=minor(target.python_version))
    if mode == MODE_NEW_VENV:
        return _new_venv(choice, host, store, recommendation, candidate, uv_exe)
    if mode == MODE_EXISTING:
        listed = choice.existing
        if listed is None and choice.path:
            listed = existing_venv(os.path.abspath(os.path.expanduser(choice.path)))
        if listed is None:
            return TargetAnswer(problem=msg("environment.existing.none"))
        target = EnvTarget.from_json(listed.to_json())
        return _checked(target, host, choice.check_python, "install.cli.bad_env_python")
    if mode == MODE_NEW_CONDA:
        return _new_conda(choice, host, recommendation, candidate, condas)
    data = choice.conda_env
    if data is None and choice.conda_name:
        data = _find_conda_env(choice.conda_name, condas or [])
    if data is None:
        return TargetAnswer(problem=msg("environment.conda.none"))
    env, conda = data
    return _checked(existing_conda_env(env, conda), host, choice.check_python, "install.cli.bad_env_python")


def _new_venv(choice: TargetChoice, host: Host, store: StateStore, recommendation: PythonChoice | None,
              candidate: Candidate | None, uv_exe: str | None) -> TargetAnswer:
    path = choice.path.strip()
    if not path:
        return TargetAnswer(problem=msg("environment.venv.no_path"))
    path = os.path.abspath(os.path.expanduser(path))
    state = unfinished_at(store, path)
    if state is not None:  # where an install stopped: continue it, with its own Python
        target = state.env_target()
        return TargetAnswer(target, resume_state=state, python_version=minor(target.python_version))
    python, interpreter = choice.python.strip(), None
    if not python:
        if recommendation is None:
            return TargetAnswer()  # the recommendation picks the interpreter (the command line's order)
        interpreter = getattr(recommendation, "interpreter", None)
        python = interpreter.path if interpreter is not None else (recommended_python(recommendation, candidate) or "")
        if not python:
            return TargetAnswer(problem=msg("environment.python.none"))
    if is_version(python):
        uv = uv_exe or find_uv()
        if not uv:
            return TargetAnswer(problem=msg("install.uv.missing"))
        target = new_venv_target(path, python, uv_exe=uv, installer=choice.installer, managed=True)
        return TargetAnswer(target, python_version=minor(python))
    version = getattr(interpreter, "version", None)
    if choice.check_python and interpreter is None:
        from wizard.core.machine.pythons import query_interpreter

        found, _key = query_interpreter(host, python, "given")
        if found.error:
            return TargetAnswer(problem=msg("install.cli.bad_python", python=python, error=found.error))
        version = found.version
    target = new_venv_target(path, python, uv_exe=uv_exe, installer=choice.installer)
    return TargetAnswer(target, python_version=minor(version), interpreter=interpreter)


def _new_conda(choice: TargetChoice, host: Host, recommendation: PythonChoice | None, candidate: Candidate | None,
               condas: list[CondaInstall] | None) -> TargetAnswer:
    if not condas:
        return TargetAnswer(problem=msg("install.check.no_conda"))
    version = minor(choice.python) if is_version(choice.python) else None
    if version is None and recommendation is None and candidate is None:
        return TargetAnswer()  # the recommendation gives the Python
    version = version or minor(recommended_python(recommendation, candidate))
    if not version:
        return TargetAnswer(problem=msg("environment.python.none"))
    return TargetAnswer(new_conda_env(choice.conda_name.strip(), version, condas[0]), python_version=version)


def _find_conda_env(name: str, condas: list[CondaInstall]) -> tuple[CondaEnv, CondaInstall] | None:
    for conda in condas:
        for env in conda.envs:
            if env.name == name or env.prefix == name:
                return env, conda
    return None


def _checked(target: EnvTarget, host: Host, check: bool, key: str) -> TargetAnswer:
    """An existing environment; with ``check``, its Python is asked whether it runs (and its version)."""
    if not check:
        return TargetAnswer(target)
    from wizard.core.machine.pythons import query_interpreter

    found, _key = query_interpreter(host, target.python_exe, "target")
    if found.error:
        return TargetAnswer(problem=msg(key, python=target.python_exe, error=found.error))
    return TargetAnswer(target, python_version=minor(found.version))


# --- what the window lists ------------------------------------------------------------------------
def usable_condas(detection: Detection | None) -> list[CondaInstall]:
    """The conda installs that can run (or that at least listed their environments)."""
    return [c for c in (detection.conda if detection else []) if c.exe and (c.error is None or c.envs)]


def conda_facts(condas: list[CondaInstall]) -> tuple[list[str], str | None]:
    """(every conda env's name, the first base prefix): what a new env's name is checked against."""
    names: list[str] = []
    base = None
    for conda in condas:
        names += [e.name for e in conda.envs]
        if base is None and conda.base_prefix:
            base = conda.base_prefix
    return names, base


def find_conda_installs(host: Host) -> list[CondaInstall]:
    """Conda installs on this machine that can be used (the command line detects them itself)."""
    from wizard.core.machine.conda import find_conda

    return [c for c in find_conda(host) if c.error is None or c.envs]


@dataclass
class PythonOption:
    """One interpreter a new venv can be made from, and whether it fits the chosen build
    (``why_not``: the build's Python range, in a Message, when it does not)."""

    path: str
    version: str
    recommended: bool = False
    why_not: Message | None = None

    @property
    def fits(self) -> bool:
        return self.why_not is None

    def label(self, lang: str) -> str:
        """The line the window's list and the command line both show for it (with the reason
        when it does not fit)."""
        why = f"  ({self.why_not.text(lang)})" if self.why_not is not None else ""
        return f"Python {self.version} — {self.path}{why}"


def python_range_text(spec: SpecifierSet) -> str:
    """A Python range as a student reads it: ``>=3.11,<3.16`` is "3.11–3.15" (packaging writes
    it "<3.16,>=3.11"); anything else keeps its clauses, lower bound first."""
    clauses = sorted(spec, key=lambda s: (s.operator not in (">=", ">"), s.version))
    low = next((s.version for s in clauses if s.operator == ">="), None)
    high = next((s.version for s in clauses if s.operator == "<"), None)
    if low and high and len(clauses) == 2 and high.count(".") == 1 and high.split(".")[1].isdigit() \
            and int(high.split(".")[1]) > 0:
        major, minor_ = high.split(".")
        return f"{low}–{major}.{int(minor_) - 1}"
    return ",".join(str(s) for s in clauses)


def python_options(detection: Detection | None, recommendation: PythonChoice | None,
                   candidate: Candidate | None) -> list[PythonOption]:
    """The detected interpreters for a new venv, each once, with whether the build has wheels for
    it: a Python 2.7 or 3.7 is listed with the reason instead of as if it worked."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from wizard.app.recommend import usable_pythons

    chosen = getattr(getattr(recommendation, "interpreter", None), "path", None)
    try:
        spec = SpecifierSet(getattr(candidate, "python_requires", "") or "")
    except InvalidSpecifier:
        spec = SpecifierSet("")
    out = []
    for p in usable_pythons(detection):
        why = None
        if str(spec) and p.version and minor(p.version) and not spec.contains(f"{minor(p.version)}.0"):
            why = msg("environment.python.unfit", version=p.version, torch=getattr(candidate, "torch", "?"),
                      range=python_range_text(spec))
        out.append(PythonOption(p.path, p.version or "?", p.path == chosen, why))
    return out


def unfit_python_lines(session: Session, lang: str) -> list[str]:
    """The detected interpreters the session's build has no wheels for, each with the reason, as
    the window lists them: what ``recommend`` and ``install`` print under the chosen Python."""
    return [o.label(lang) for o in python_options(session.detection, session.recommendation, session.candidate)
            if not o.fits]


def env_root_note(host: Host) -> Message | None:
    """Why new environments go under an ASCII root instead of the home (a Windows user name in
    Hangul: the tools that break on such a path are named in wizard/core/base/ascii_root.py), with
    where; None when they go under the home as usual."""
    from wizard.core.base.ascii_root import ascii_env_root

    home = host.home()
    root = ascii_env_root(host.os_name, home, host.getenv("SystemDrive"))
    return msg("environment.venv.ascii_root", root=root, home=home) if root else None


def existing_environments(detection: Detection | None, host: Host, offer: ReuseOffer | None = None) -> list[EnvTarget]:
    """Existing venvs the detection saw or the wizard made (with the last run's, wherever it is),
    then interpreters themselves."""
    from wizard.app.recommend import usable_pythons
    from wizard.core.machine.system import default_env_root

    targets = existing_targets(detection.pythons if detection else [], [], extra_roots=[default_env_root(host)])
    if offer is not None and not any(x.python_exe == offer.python_exe for x in targets):
        targets.append(existing_venv(offer.env_path))
    venv_pythons = {existing_venv(x.path).python_exe for x in targets}
    pythons = [existing_python(p.path) for p in usable_pythons(detection) if not p.is_venv
               and p.path not in venv_pythons]
    return targets + pythons


def existing_venv_at(folder: str) -> EnvTarget:
    """The venv in ``folder`` (one the detection did not list), as an existing target."""
    return existing_venv(os.path.abspath(folder))


def is_bare_python(target: EnvTarget) -> bool:
    """An interpreter's own environment (a python.org install), not a venv or a conda env."""
    return target.kind == KIND_EXISTING_PYTHON


def python_version_of(target: EnvTarget, detection: Detection | None) -> str | None:
    """An existing interpreter target's version, from the detection."""
    for p in (detection.pythons if detection else []):
        if p.path == target.python_exe:
            version: str | None = p.version
            return version
    return None


# --- removing an environment the wizard made ----------------------------------------------------
@dataclass
class RemoveOutcome:
    """What a removal did (``removed`` folders, ``method``) or why it was refused (``refused``)."""

    removed: list[str] = field(default_factory=list)
    method: str = "nothing"
    refused: str | None = None
    freed: int = 0

    @property
    def ok(self) -> bool:
        return self.refused is None


def remove_environment(state: EnvState, host: Host, store: StateStore | None,
                       plan: DeletePlan | None = None) -> RemoveOutcome:
    """Delete an environment the wizard created, and its record (blocking: a worker's, or the
    command's). Refused -- not raised -- for one it did not create."""
    from wizard.core.install.recovery import RemoveRefused
    from wizard.core.install.recovery import remove_environment as core_remove

    try:
        result = core_remove(state, host, store, plan=plan)
    except RemoveRefused as exc:
        return RemoveOutcome(refused=str(exc))
    return RemoveOutcome(list(result.removed), result.method, None, result.freed)


__all__ = ["MODES", "MODE_EXISTING", "MODE_EXISTING_CONDA", "MODE_NEW_CONDA", "MODE_NEW_VENV", "MODE_RESUME",
           "MODE_SKIP", "PythonOption", "RemoveOutcome", "TargetAnswer", "TargetChoice", "conda_facts",
           "env_root_note", "existing_environments", "existing_venv_at", "find_conda_installs", "find_uv", "is_bare_python", "is_version", "minor", "python_options", "unfit_python_lines",
           "recommended_python", "remove_environment", "resolve_target", "usable_condas", "venv_mode"]
