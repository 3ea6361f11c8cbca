"""Kernel use cases: register an environment for Jupyter, list the kernels, verify inside one.

Both faces call these: ``gpu-setup-wizard kernel ...`` and the Verify page's "Jupyter / VS Code"
panel (on a worker thread: every one of them runs children). The texts are the catalogue's,
in the language asked for; the engine is :mod:`wizard.core.verify.kernel_specs`,
:mod:`~wizard.core.verify.kernel_install` and :mod:`~wizard.core.verify.kernel_verify`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.base.process import CancelLike
    from wizard.core.verify.checklist import VerifyReport as VerifyReport
    from wizard.core.verify.kernel_install import RegisterResult, SettingsResult
    from wizard.core.verify.kernel_install import SettingsRefused as SettingsRefused
    from wizard.core.verify.kernel_install import valid_name as valid_name
    from wizard.core.verify.kernel_specs import EnvFacts, Flag
    from wizard.core.verify.kernel_specs import KernelInfo as KernelInfo

__getattr__ = lazy_exports(__name__, {"SettingsRefused": "wizard.core.verify.kernel_install",
                                      "valid_name": "wizard.core.verify.kernel_install",
                                      "KernelInfo": "wizard.core.verify.kernel_specs",
                                      "VerifyReport": "wizard.core.verify.checklist"})

KERNEL_VERIFY_TIMEOUT_S = 300


def gpu_machine(session: Session) -> bool:
    """This PC has an NVIDIA GPU, as the session's detection saw it (False before detection)."""
    detection = session.detection
    return bool(detection is not None and detection.nvidia.gpus)


def os_name(session: Session) -> str:
    return str(getattr(session.host, "os_name", "") or "linux")


def display_name(env: EnvFacts, lang: str) -> str:
    """"PyTorch 2.13 (GPU) – dl-course", or "Python 3.11 – dl-course" without torch."""
    from wizard.core.verify.kernel_install import torch_label

    version, kind = torch_label(env)
    if version:
        kind_text = t("kernels.kind.gpu" if kind == "GPU" else "kernels.kind.cpu", lang)
        return t("kernels.display_name", lang, version=version, kind=kind_text, env=env.env_name)
    return t("kernels.display_name_plain", lang, python=env.python_version or "3", env=env.env_name)


def register(session: Session, python_exe: str, *, name: str | None = None, consent: bool = False,
             on_line: Callable[[str], None] | None = None, cancel: CancelLike = None, replace: bool = False,
             index_url: str | None = None) -> RegisterResult:
    """Register ``python_exe`` as a ``--user`` kernel (installing ipykernel only with consent). A
    kernel of the same name that runs another interpreter is replaced only with ``replace``.
    ipykernel comes from :func:`ipykernel_index` (``index_url`` first)."""
    from wizard.core.verify.kernel_install import register_kernel

    lang = session.lang
    return register_kernel(python_exe, lambda env: display_name(env, lang), name=name, consent=consent,
                           on_line=on_line, cancel=cancel, os_name=os_name(session), replace=replace,
                           index_url=ipykernel_index(session, index_url))


def ipykernel_index(session: Session, index_url: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """Where ipykernel comes from (it is PyPI's, never on a PyTorch index): the address asked for
    (``kernel install --index-url``), else the PyPI mirror this run's install took a course's
    extras from, else the student's own ``PIP_INDEX_URL`` (pip runs isolated from its settings,
    so the wizard passes it on), else PyPI (None)."""
    if index_url:
        return index_url
    request = session.install_request
    extras = request.options.extras_index if request is not None else None
    if extras:  # a PyPI mirror, or a mirror the student said has everything
        return extras
    env = os.environ if environ is None else environ
    return env.get("PIP_INDEX_URL") or None


def list_kernels(session: Session) -> list[KernelInfo]:
    """The registered kernels, each interpreter inspected and flagged for this machine."""
    from wizard.core.verify.kernel_specs import list_kernels as core_list

    return core_list(gpu_machine(session), os_name(session))


def find_kernel(session: Session, name: str) -> KernelInfo | None:
    for info in list_kernels(session):
        if info.name == name.lower():
            return info
    return None


def verify_in_kernel(session: Session, name: str, *, on_event: Callable[[dict[str, Any]], None] | None = None,
                     cancel: CancelLike = None, interpreter: str | None = None) -> VerifyReport:
    """The verification checklist run inside kernel ``name`` (started, probed, shut down)."""
    from wizard.core.verify.kernel_verify import run_verify_in_kernel

    return run_verify_in_kernel(name.lower(), session.detection, timeout=KERNEL_VERIFY_TIMEOUT_S,
                                on_event=on_event, cancel=cancel, interpreter=interpreter)


def jupyter_client_missing() -> str | None:
    """Why a kernel cannot be started from this wizard (jupyter_client missing), or None."""
    from wizard.core.verify.kernel_verify import jupyter_client_missing as core_missing

    return core_missing()


def write_vscode(project_dir: str | Path, python_exe: str) -> SettingsResult:
    """VS Code's interpreter setting for ``project_dir`` (merged; raises SettingsRefused/OSError)."""
    from wizard.core.verify.kernel_install import write_vscode_setting

    return write_vscode_setting(project_dir, python_exe)


# ------------------------------------------------------------------------------------------
# Texts both faces show
# ------------------------------------------------------------------------------------------
def flag_text(flag: Flag, lang: str) -> str:
    return t(f"kernels.flag.{flag.id}", lang, **flag.params)


def flag_fix(flag: Flag, lang: str) -> str:
    return t(f"kernels.fix.{flag.id}", lang, **flag.params)


def kernel_line(info: KernelInfo, lang: str) -> str:
    """One kernel as a line: its name, display name, interpreter and torch build."""
    torch = info.env.torch if info.env is not None else None
    if info.broken:
        build = t("kernels.broken_state", lang)
    elif info.interpreter is None:
        build = t("kernels.interpreter_gone", lang)
    elif torch is None:
        build = t("kernels.no_torch", lang) if info.env is not None and not info.env.error else "—"
    else:
        kind = t("kernels.kind.gpu" if torch.gpu else "kernels.kind.cpu", lang)
        build = t("kernels.torch_build", lang, version=torch.version or "?", kind=kind)
    return t("kernels.line", lang, name=info.name, display=info.display_name,
             python=info.interpreter or (info.argv[0] if info.argv else "?"), build=build)


def register_text(result: RegisterResult, lang: str) -> str:
    """What a registration did, in a sentence or two."""
    if result.ok:
        lines = [t("kernels.registered", lang, name=result.name, display=result.display_name)]
        if result.replaced:
            lines.insert(0, t("kernels.replaced", lang, name=result.name, python=(result.existing or {}).get("python", "?")))
        if result.installed_ipykernel:
            lines.insert(0, t("kernels.ipykernel_installed", lang))
        for flag in result.warnings:
            lines += ["⚠ " + flag_text(flag, lang), "  → " + flag_fix(flag, lang)]
        return "\n".join(lines)
    if result.needs_consent:
        return t("kernels.needs_ipykernel", lang, python=result.env.python_exe)
    if result.failed_step == "name":
        return t("kernels.bad_name", lang, name=result.name)
    if result.failed_step == "exists" and result.existing is not None:
        step = result.steps[-1] if result.steps else None
        if step is not None and step.error:
            return t("kernels.replace_failed", lang, name=result.name, error=step.error)
        return t("kernels.exists", lang, name=result.name, python=result.existing["python"])
    if result.failed_step == "inspect":
        return t("kernels.python_broken", lang, python=result.env.python_exe, error=result.env.error or "")
    step = result.steps[-1] if result.steps else None
    tail = (step.output_tail.strip().splitlines() or [""])[-1] if step is not None else ""
    if step is not None and step.error:
        tail = step.error
    key = "kernels.ipykernel_failed" if result.failed_step == "ipykernel" else "kernels.register_failed"
    return t(key, lang, error=tail)


__all__ = ["gpu_machine", "os_name", "display_name", "register", "list_kernels", "find_kernel", "verify_in_kernel",
           "write_vscode", "jupyter_client_missing", "remember_verify", "flag_text", "flag_fix", "kernel_line", "register_text", "KERNEL_VERIFY_TIMEOUT_S"]


def remember_verify(session: Session, display: str, report: VerifyReport) -> None:
    """Keep the checklist run inside a kernel for the report's "Jupyter kernel" section
    (``display``: the kernel's display name, the one the notebook's kernel picker shows)."""
    session.kernel_verify = (display, report)
