"""The course profile: a small TOML file an instructor writes once and hands out by file or URL.

Why a file of its own: every student of a course needs the same torch (a pin or a range), the
same extra packages and the same lessons judged for their machine. The wizard reads it the way
it reads any user's file (bounded, one-line refusals in the student's language), checks it
against ``resources/courses/course.schema.json`` and turns it into a :class:`CourseProfile` the
recommendation, the install request, verification and the report all take.

The format is documented in ``resources/courses/example-course.toml`` (comments) and the README.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from wizard.core.base.i18n import MessageError, msg
from wizard.core.base.user_input import decode_user_bytes, read_user_text

# A course profile is a few hundred bytes; 64 kB is far beyond a real one and bounds a hostile one.
MAX_COURSE_BYTES = 64 * 1024
URL_TIMEOUT_S = 10.0  # connect, and each read
URL_DEADLINE_S = 40.0  # the whole fetch, every redirect and the body (4 × the timeout, as the table update)
SCHEMA = "gpu-setup-wizard/course"
SUPPORTED = "1.0"
# The distribution name → the module ``import`` needs, where they differ.
IMPORT_NAMES = {"scikit-learn": "sklearn", "pillow": "PIL", "opencv-python": "cv2", "pyyaml": "yaml",
                "opencv-python-headless": "cv2", "beautifulsoup4": "bs4", "protobuf": "google.protobuf"}


class CourseError(MessageError, ValueError):
    """A course profile the wizard refuses (unreadable, too big, not TOML, not ours); the message says why."""


@dataclass(frozen=True)
class CourseLesson:
    """One lesson: a workload of ``resources/workloads.json`` (``id`` alone) or the course's own
    (``vram_gb`` says how much GPU memory it needs; it also overrides a known lesson's need).

    ``model`` names the lesson's model by a library SPEC (``torchvision:resnet50``, ``timm:NAME``,
    ``hf:MODEL_TYPE``) instead of a hand-written figure: once the student's environment has torch,
    the wizard measures it there (``batch``, ``mode``, ``dtype``, ``input`` as ``vram --measure``
    takes them), and ``vram_gb``, when given too, is only what the report shows until then. Never a
    file: a course comes from a URL, and the wizard runs no code a course names."""

    id: str
    title: str = ""
    vram_gb: float | None = None
    model: str = ""
    batch: int = 1
    mode: str = "train"
    dtype: str = "fp32"
    input_shape: str | None = None


@dataclass(frozen=True)
class CourseProfile:
    name: str
    torch: str = ""  # a specifier set ("==2.6.*", ">=2.5,<2.8") or a bare version ("2.6")
    python: str = ""  # "3.12" or a specifier set
    packages: tuple[str, ...] = ()
    min_vram_gb: float = 0.0
    lessons: tuple[CourseLesson, ...] = ()
    colab_allowed: bool = True
    colab_url: str = ""
    colab_note: str = ""
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def torch_spec(self) -> Any:
        """The pin as a SpecifierSet (a bare "2.6" means "2.6.*"), or None when there is none."""
        return _spec(self.torch)

    def python_spec(self) -> Any:
        return _spec(self.python)

    def requirement_names(self) -> list[str]:
        """The extras' distribution names (``transformers>=4.40`` → ``transformers``)."""
        return [_dist_name(p) for p in self.packages]

    def import_names(self) -> list[tuple[str, str]]:
        """(requirement, module to import) per extra package."""
        return [(p, IMPORT_NAMES.get(_dist_name(p).lower(), _dist_name(p).replace("-", "_"))) for p in self.packages]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "torch": self.torch, "python": self.python, "packages": list(self.packages),
                "min_vram_gb": self.min_vram_gb, "source": self.source,
                "lessons": [_lesson_json(ls) for ls in self.lessons],
                "colab": {"allowed": self.colab_allowed, "url": self.colab_url, "note": self.colab_note}}


def _lesson_json(lesson: CourseLesson) -> dict[str, Any]:
    out: dict[str, Any] = {"id": lesson.id, "title": lesson.title, "vram_gb": lesson.vram_gb}
    if lesson.model:
        out.update(model=lesson.model, batch=lesson.batch, mode=lesson.mode, dtype=lesson.dtype)
        if lesson.input_shape:
            out["input"] = lesson.input_shape
    return out


PYTORCH_INDEX = "https://download.pytorch.org/"


def add_extras(course: CourseProfile | None, options: Any, extras_index: str | None = None) -> Any:
    """``options`` (an install request's InstallOptions) with the course's extras appended, each once.

    download.pytorch.org has no transformers, and a mirror of it may lack them too: the extras
    come from the build's index (PyTorch's, or the student's mirror) when it has them, else from
    ``extras_index`` -- PyPI unless a PyPI mirror is named; torch still comes from the build's
    index (the rule and why: :mod:`wizard.core.install.extras`)."""
    from wizard.core.install.extras import arrange

    return arrange(options, list(course.packages) if course is not None else [], extras_index)


def _dist_name(req: str) -> str:
    from packaging.requirements import Requirement

    return Requirement(req).name


def _spec(text: str) -> Any:
    from packaging.specifiers import SpecifierSet

    if not text:
        return None
    if re.fullmatch(r"\d+(\.\d+){0,2}", text.strip()):
        return SpecifierSet(f"=={text.strip()}.*" if text.count(".") < 2 else f"=={text.strip()}")
    return SpecifierSet(text)


def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def _schema() -> dict[str, Any]:
    from wizard.core.base.resources import load_json

    return load_json("courses", "course.schema.json")


def parse_course(text: str, source: str = "") -> CourseProfile:
    """``text`` (TOML) → a checked :class:`CourseProfile`; :class:`CourseError` saying why not."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier

    from wizard.core.base.schema import SchemaError, check_schema
    from wizard.core.course.checks import MAX_DEPTH, CourseProblem, check_document, check_fields, toml_nesting
    from wizard.core.course.validate import SchemaViolation, validate

    if toml_nesting(text) > MAX_DEPTH:  # before the parser, which recurses
        raise CourseError(msg("course.too_deep", source=source, depth=MAX_DEPTH))
    try:
        doc = _toml_loads(text)
    except RecursionError as exc:  # a nesting the scan could not see: never a traceback
        raise CourseError(msg("course.too_deep", source=source, depth=MAX_DEPTH)) from exc
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise CourseError(msg("course.not_toml", source=source, error=str(exc))) from exc
    try:
        check_schema(doc, SCHEMA, SUPPORTED)
    except SchemaError as exc:
        raise CourseError(msg("course.not_ours", source=source)) from exc
    try:
        check_document(doc, source)  # depth, nan/inf, control characters: anywhere in the file
        validate(doc, _schema())
        check_fields(doc, source)  # lesson ids once; packages by the install's one rule
    except SchemaViolation as exc:
        raise CourseError(msg("course.invalid", source=source, where=exc.where, error=exc.problem)) from exc
    except CourseProblem as exc:
        raise CourseError(exc.message) from exc
    course = doc["course"]
    try:
        for req in course.get("packages", []):
            Requirement(req)
        profile = _profile(doc, course, source)
        profile.torch_spec()
        profile.python_spec()
    except (InvalidRequirement, InvalidSpecifier) as exc:
        raise CourseError(msg("course.invalid", source=source, where="course", error=str(exc))) from exc
    return profile


def _profile(doc: dict[str, Any], course: dict[str, Any], source: str) -> CourseProfile:
    lessons = tuple(CourseLesson(str(ls["id"]), str(ls.get("title", "")),
                                 float(ls["vram_gb"]) if "vram_gb" in ls else None, model=str(ls.get("model", "")),
                                 batch=int(ls.get("batch", 1)), mode=str(ls.get("mode", "train")),
                                 dtype=str(ls.get("dtype", "fp32")), input_shape=ls.get("input") or None)
                    for ls in doc.get("lessons", []))
    colab = doc.get("colab", {})
    return CourseProfile(name=course["name"], torch=str(course.get("torch", "")), python=str(course.get("python", "")),
                         packages=tuple(course.get("packages", [])), min_vram_gb=float(course.get("min_vram_gb", 0)),
                         lessons=lessons, colab_allowed=bool(colab.get("allowed", True)),
                         colab_url=str(colab.get("url", "")), colab_note=str(colab.get("note", "")), source=source,
                         raw=doc)


def _read_url(url: str, limit: int) -> str:
    """The profile at ``url``: https on every hop (or http to this machine), at most ``limit``
    bytes, within ``URL_DEADLINE_S`` in all (a server sending a byte a second is given up)."""
    import requests

    from wizard.core.base.http import DeadlineExceeded, InsecureURL, ResponseTooLarge, http_session

    session = http_session(timeout=(URL_TIMEOUT_S, URL_TIMEOUT_S), deadline_s=URL_DEADLINE_S, https_only=True,
                           allow_loopback_http=True, max_bytes=limit)
    try:
        with session, session.get(url) as resp:
            resp.raise_for_status()
            data = resp.content
    except InsecureURL as exc:
        raise CourseError(msg("course.redirect_not_https", source=url, target=exc.url)) from exc
    except ResponseTooLarge as exc:
        raise CourseError(msg("course.too_big", source=url, limit=limit // 1024)) from exc
    except DeadlineExceeded as exc:
        raise CourseError(msg("course.too_slow", source=url, seconds=f"{URL_DEADLINE_S:g}")) from exc
    except requests.RequestException as exc:
        raise CourseError(msg("course.unreadable", source=url, error=str(exc))) from exc
    return decode_user_bytes(data)


def load_course(source: str, limit: int = MAX_COURSE_BYTES) -> CourseProfile:
    """A course profile from a file or an ``https://`` address, bounded to ``limit`` bytes."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", source):
        if not source.lower().startswith("https://") and not _loopback_http(source):
            raise CourseError(msg("course.not_https", source=source))
        return parse_course(_read_url(source, limit), source)
    try:
        if source != "-":  # a regular file only: a named pipe is refused, never opened and waited on
            _regular_file(source)
        got = read_user_text(source, limit)
    except OSError as exc:
        error = exc.message if isinstance(exc, MessageError) else (exc.strerror or str(exc))
        raise CourseError(msg("course.unreadable", source=source, error=error)) from exc
    if got.truncated:
        raise CourseError(msg("course.too_big", source=source, limit=limit // 1024))
    return parse_course(got.text, source)


def _regular_file(path: str) -> None:
    """NotARegularFile (an OSError) for a pipe, a device, a folder or a socket, without opening it."""
    import os
    import stat

    from wizard.core.base.user_files import NotARegularFile, file_kind

    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotARegularFile(path, file_kind(mode))


def _loopback_http(url: str) -> bool:
    """Plain http only to this machine (a classroom's own test server, and the tests')."""
    from urllib.parse import urlsplit

    return url.lower().startswith("http://") and (urlsplit(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


def allowed_torches(profile: CourseProfile, releases: Any) -> list[str]:
    """Every torch the compatibility table knows that the course's pin allows, newest first: a
    minor ("2.6": the recommender then takes its newest patch) when the pin allows all of its
    patches, else its newest allowed patch ("2.6.1"). ``releases``: the table's, newest first."""
    spec = profile.torch_spec()
    if spec is None:
        return []
    out = []
    for rel in releases:
        patches = sorted(rel.patches or (f"{rel.torch}.0",), key=lambda v: [int(x) for x in v.split(".")],
                         reverse=True)
        allowed = [v for v in patches if spec.contains(v, prereleases=False)]
        if allowed:
            out.append(rel.torch if len(allowed) == len(patches) else allowed[0])
    return out


def pick_torch(profile: CourseProfile, releases: Any) -> str | None:
    """The newest torch the pin allows (see :func:`allowed_torches`); None when none is."""
    allowed = allowed_torches(profile, releases)
    return allowed[0] if allowed else None


__all__ = ["CourseError", "add_extras", "CourseLesson", "CourseProfile", "MAX_COURSE_BYTES", "load_course", "parse_course",
           "allowed_torches", "pick_torch"]
