"""Where a course's extra packages come from, and what a plan that cannot get them says.

The rule: PyTorch's packages come from the build's index (PyTorch's, or the mirror the student
set); the course's extras come from that index when it has them, else from the extras' source --
PyPI (https://pypi.org/simple) unless the student names a PyPI mirror. The extras' source is
then the plan's main index and the build's index an extra one: uv asks extra indexes first and,
with its default index strategy (``first-index``), takes each package from the first index that
has it, so torch (and anything else the mirror carries) still comes from the mirror and the
extras' source is asked only for what the mirror lacks (a classroom with a complete mirror and
no internet never reaches PyPI). pip merges every index and takes the highest version: a
pinned ``torch==X`` still takes the build's ``X+cu126`` over PyPI's ``X``. An extras' source
equal to the mirror means "the mirror only".

A plan that fails on them says so: the packages the indexes do not have, when they are only the
course's extras ("missing-extra": another PyTorch build cannot help), or the extras' source that
could not be reached ("extras-unreachable").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence
from urllib.parse import urlsplit

from wizard.core.base.i18n import msg

if TYPE_CHECKING:
    from wizard.core.install.job import InstallOptions
    from wizard.core.install.plan import PlanError

PYPI_SIMPLE = "https://pypi.org/simple"

# the tools' words for a package no index has (uv's resolver, pip's)
_MISSING = (
    re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*) was not found in the (?:package registry|provided package locations)"),
    re.compile(r"there (?:is|are) no versions? of ([A-Za-z0-9][A-Za-z0-9._-]*)"),
    re.compile(r"No matching distribution found for ([A-Za-z0-9][A-Za-z0-9._-]*)"),
    re.compile(r"satisfies the requirement ([A-Za-z0-9][A-Za-z0-9._-]*)"),
)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(req: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    return canonical(m.group(1)) if m else canonical(req)


def same_index(a: str | None, b: str | None) -> bool:
    return (a or PYPI_SIMPLE).strip().rstrip("/") == (b or PYPI_SIMPLE).strip().rstrip("/")


def arrange(options: InstallOptions, extras: Sequence[str], source: str | None = None) -> InstallOptions:
    """``options`` with ``extras`` (requirement strings) appended, each once, and the indexes
    ordered by the rule above. ``source``: the extras' source (None or "": PyPI)."""
    added = [r for r in extras if r not in options.requirements]
    if not added:
        return options
    options.requirements = list(options.requirements) + added
    options.extras = list(dict.fromkeys([*options.extras, *added]))
    source = (source or "").strip() or PYPI_SIMPLE
    build = options.index_url
    if build is None or same_index(build, source):
        return options  # the build's index is the extras' source already (PyPI, or "the mirror only")
    options.extras_index = source  # the build's index stays ``index_url``: the plan, the state, a Resume
    return options


def ordered_indexes(options: Any) -> tuple[str | None, list[str]]:
    """(main index, extra indexes) for pip's and uv's command lines: with an extras' source, it
    is the main index and the build's index the first extra one (uv asks extra ones first);
    otherwise the options' own."""
    source, build = getattr(options, "extras_index", None), options.index_url
    extra = list(options.extra_index_urls)
    if not source or build is None or same_index(build, source):
        return build, extra
    return (None if same_index(source, PYPI_SIMPLE) else source), [build, *[u for u in extra
                                                                        if not same_index(u, build)]]


def names_missing(text: str) -> list[str]:
    """The packages a resolver's output says no index has (canonical names, in order)."""
    found: list[str] = []
    for pattern in _MISSING:
        for m in pattern.finditer(text or ""):
            name = canonical(m.group(1))
            if name not in found:
                found.append(name)
    return found


def indexes_asked(options: InstallOptions) -> list[str]:
    """The indexes in the order uv asks them: extra ones first, then the main one (PyPI for none)."""
    main, extra = ordered_indexes(options)
    return [*extra, main or PYPI_SIMPLE]


def for_extras(err: PlanError, options: InstallOptions, output: str = "") -> PlanError:
    """``err`` said in terms of the course's extras when it is about them, else ``err`` itself."""
    from wizard.core.install.plan import PlanError

    if not options.extras:
        return err
    text = "\n".join(x for x in (output, err.detail, getattr(err, "output", "")) if x)
    extra_names = {requirement_name(r): r for r in options.extras}
    if err.kind == "no-version":
        missing = names_missing(text)
        if missing and all(n in extra_names for n in missing):
            packages = ", ".join(missing)
            indexes = ", ".join(indexes_asked(options))
            key = ("install.plan.error.missing_extra_everywhere" if options.extras_index
                   else "install.plan.error.missing_extra")
            return PlanError("missing-extra", msg(key, packages=packages, indexes=indexes, pypi=PYPI_SIMPLE),
                             err.detail, err.host)
    if err.kind == "network" and options.extras_index:
        source = options.extras_index.strip().rstrip("/")
        source_host = urlsplit(source).hostname
        build_hosts = {urlsplit(u).hostname for u in ordered_indexes(options)[1]}
        if source in text or (source_host and err.host == source_host and source_host not in build_hosts):
            pages = [canonical(m.group(1)) for m in re.finditer(re.escape(source) + r"/([A-Za-z0-9][A-Za-z0-9._-]*)",
                                                                  text)]
            named = [n for n in dict.fromkeys(pages) if n in extra_names] or list(extra_names)
            return PlanError("extras-unreachable", msg("install.plan.error.extras_unreachable", host=source_host,
                                                       packages=", ".join(named), source=options.extras_index),
                             err.detail, err.host)
    return err


def sources_words(options: Any, lang: str) -> str | None:
    """Where the packages come from, in words, when a course's extras have their own source;
    None otherwise (the index list says it)."""
    from wizard.core.base.i18n import t

    extras = getattr(options, "extras", None)
    source = getattr(options, "extras_index", None)
    if not extras or not source or not options.index_url:
        return None
    return t("install.sources.extras", lang, build=options.index_url,
             extras=" ".join(requirement_name(r) for r in extras), source=source)


__all__ = ["PYPI_SIMPLE", "arrange", "canonical", "for_extras", "indexes_asked",
           "names_missing", "ordered_indexes", "requirement_name", "same_index", "sources_words"]
