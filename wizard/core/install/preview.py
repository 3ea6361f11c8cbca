"""The plan before the install runs it, in one blocking call (the Environment page's preview,
``install --plan-only``, scripts): inspect the target, resolve -- uv from metadata by default, or
pip's dry-run report -- refuse a torch family of mixed builds, mark what is installed, ask sizes.
The install job runs the same pieces as separate steps (:mod:`wizard.core.install.actions`).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from wizard.core.base.host import Host
from wizard.core.install import uv_plan
from wizard.core.install.family import family_problem
from wizard.core.install.plan import (
    PIP_ENV,
    RESOLVE_TIMEOUT,
    InstallPlan,
    classify_pip_failure,
    fill_sizes,
    inspect_installed,
    mark_satisfied,
    parse_pip_report,
    pip_command,
    resolve_argv,
)


def resolve_plan(host: Host, env_python: str, requirements: Sequence[str], index_url: str | None,
                 work_dir: str | os.PathLike[str], *, extra_index_urls: Sequence[str] = (),
                 session: Any = None, sizes: bool = True, timeout: float = RESOLVE_TIMEOUT,
                 uv_exe: str | None = None, uv_cache_dir: str | None = None, refresh: bool = False) -> InstallPlan:
    """Resolve, read the report, mark what is installed, ask for sizes. Blocking. With
    ``uv_exe``, uv resolves (``uv pip compile``, metadata only), else pip's dry-run report.
    Either way a torch family of mixed builds is refused (``PlanError`` 'family-mismatch')."""
    from wizard.core.install.requirements_gate import checked_for_plan

    requirements = checked_for_plan(requirements)  # the one install rule, before anything runs
    installed, pyver = inspect_installed(host, env_python)
    env_markers: dict[str, Any] = {}
    if uv_exe:
        lock = os.path.join(os.fspath(work_dir), uv_plan.PYLOCK_NAME)
        if os.path.exists(lock):
            os.unlink(lock)
        uv_plan.write_requirements_in(lock, requirements)
        argv = uv_plan.uv_resolve_argv(uv_exe, env_python, requirements, index_url, lock, extra_index_urls,
                                       refresh=refresh)
        res = host.run(argv, timeout=timeout, env=uv_plan.uv_child_env(None, uv_cache_dir))
        if not res.ok:
            raise uv_plan.classify_uv_failure((res.stdout or "") + "\n" + (res.stderr or "") + (res.error or ""),
                                              index_url)
        with open(lock, encoding="utf-8") as fh:
            files = uv_plan.parse_pylock(fh.read(), requirements)
    else:
        report = os.path.join(os.fspath(work_dir), "pip-report.json")
        argv = resolve_argv(pip_command(env_python, python_version=pyver), requirements, index_url, report,
                            extra_index_urls)
        res = host.run(argv, timeout=timeout, env=PIP_ENV)
        if not res.ok:
            raise classify_pip_failure((res.stdout or "") + "\n" + (res.stderr or "") + (res.error or ""), index_url)
        with open(report, encoding="utf-8") as fh:
            files, env_markers = parse_pip_report(fh.read())
    problem = family_problem(files)
    if problem is not None:
        raise problem
    mark_satisfied(files, installed)
    plan = InstallPlan(env_python, list(requirements), index_url, files,
                       python_version=pyver or env_markers.get("python_full_version"),
                       installed_before=installed)
    if sizes:
        fill_sizes(plan.files, session)
    return plan


__all__ = ["resolve_plan"]
