"""Fuzz targets for what gets installed: an offline bundle's ``bundle.json`` and a course profile's
packages (issue 24). Registered in :data:`tests.fuzz.targets.TARGETS` beside the readers.

Beyond the readers' contract (a result or the reader's own refusal, never another exception),
each checks the one install rule: nothing outside the bundle, and nothing but a name with
versions, extras and markers, is ever accepted as an install argument.

- ``bundle-json``: a real bundle folder (wheels of a one-build and a two-build bundle, and a
  wheel *outside* the folder), its manifest mutated structurally and with every known hostile
  requirement spliced in (direct ``file://`` and ``http://`` requirements, paths, ``-r``,
  ``--find-links``, ``--index-url``, names no file provides). Whatever :func:`check_bundle`
  accepts must install only hash-pinned ``file:`` lines naming listed files inside the folder.
- ``course-install``: course profiles with hostile packages, deep nesting, ``nan``/``inf``,
  duplicate and newline-ended lesson ids; whatever is accepted must add only requirements that
  pass the rule to an install request, and judge its lessons without an exception.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.strategies import json_text, mutated_json, mutated_text, saved_bytes
from tests.fuzz.targets import Target, _outcome, read_capped, refused

_WORLD: dict[str, Any] = {}


def _world() -> dict[str, Any]:
    """The bundle folder and the wheel outside it, made once per process."""
    if _WORLD:
        return _WORLD
    from tests.integration.index_server import make_wheel

    root = Path(tempfile.mkdtemp(prefix="gsw-fuzz-bundle-"))
    folder = root / "bundle"
    wheels = [make_wheel(folder, "gsw-x", "1.0", requires=["gsw-y>=1"]), make_wheel(folder, "gsw-y", "1.0"),
              make_wheel(folder, "gsw-t", "2.0+cpu"), make_wheel(folder, "gsw-t", "2.0+cu126")]
    evil = make_wheel(root / "elsewhere", "gsw-evil", "6.6")
    entry = {w.name: {"filename": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest(),
                      "size": w.stat().st_size} for w in wheels}
    x, y, cpu, cu = (w.name for w in wheels)
    one = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-x==1.0"], "variants": [],
           "python": "3.12", "platform": "", "created_by": "gpu-setup-wizard 1", "variant_sets": {},
           "variant_dependencies": "", "files": [entry[x], entry[y]]}
    several = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-t==2.0+cpu", "gsw-x==1.0"],
               "variants": ["cpu", "cu126"], "python": "3.12", "platform": "", "created_by": "gpu-setup-wizard 1",
               "variant_sets": {"cpu": {"files": [cpu], "requirements": ["gsw-t==2.0+cpu", "gsw-x==1.0"]},
                                "cu126": {"files": [cu], "requirements": ["gsw-t==2.0+cu126", "gsw-x==1.0"]}},
               "variant_dependencies": "shared", "files": [entry[x], entry[y], entry[cpu], entry[cu]]}
    hostile = [f"gsw-evil @ {evil.as_uri()}", str(evil), f"--find-links={evil.parent}", f"--find-links {evil.parent}",
               "-r", "/etc/hostname", f"-r{evil.parent}/reqs.txt", "gsw-evil @ http://127.0.0.1:9/gsw_evil.whl",
               "--index-url", "http://127.0.0.1:9/simple", "--extra-index-url=http://127.0.0.1:9/simple",
               "gsw-evil", "gsw-x==2.0", "gsw-x==1.0\n--find-links /elsewhere", evil.name, f"../elsewhere/{evil.name}",
               "gsw-evil @ git+https://127.0.0.1:9/a/b", "-e", ".", "--pre", "gsw-x>=0.1", "GSW_X==1.0",
               "gsw-x==1.0; python_version > '1'", "gsw-t==2.0", "gsw-t==2.0+rocm6", "--no-deps", "gsw-x[extra]==1.0",
               "C:\\elsewhere\\gsw_evil-6.6-py3-none-any.whl", "gsw-evil@file:///" + evil.name, " ", ""]
    _WORLD.update(root=root, folder=folder, evil=evil, seeds=[one, several], hostile=hostile,
                  sha={w.name: entry[w.name]["sha256"] for w in wheels})
    return _WORLD


@st.composite
def _hostile_manifest(draw: Any) -> Any:
    """A valid manifest with hostile strings spliced into its requirements, variant sets or file names."""
    world = _world()
    doc = json.loads(json.dumps(draw(st.sampled_from(world["seeds"]))))
    for _ in range(draw(st.integers(1, 3))):
        bad = draw(st.sampled_from(world["hostile"]))
        where = draw(st.sampled_from(["requirements", "variant", "filename", "requirements-string", "variant-string"]))
        sets = doc.get("variant_sets") or {}
        if where == "requirements" and isinstance(doc["requirements"], list):
            doc["requirements"].insert(draw(st.integers(0, len(doc["requirements"]))), bad)
        elif where == "variant" and sets:
            chosen = sets[draw(st.sampled_from(sorted(sets)))]
            if isinstance(chosen, dict):
                chosen["requirements"].insert(draw(st.integers(0, len(chosen["requirements"]))), bad)
        elif where == "filename":
            doc["files"][draw(st.integers(0, len(doc["files"]) - 1))]["filename"] = bad
        elif where == "requirements-string":
            doc["requirements"] = bad
        elif sets:
            sets[draw(st.sampled_from(sorted(sets)))] = bad
    return doc


def _bundle_inputs() -> st.SearchStrategy[str]:
    world = _world()
    return st.one_of(json_text(mutated_json(world["seeds"])), json_text(_hostile_manifest()),
                     _hostile_manifest().map(json.dumps), st.sampled_from(world["seeds"]).map(json.dumps))


_LINE = re.compile(r"([a-z0-9][a-z0-9._-]*) @ (file:\S+) --hash=sha256:([0-9a-f]{64})")


def _check_install_arguments(manifest: Any, folder: Path) -> None:
    """What an accepted manifest makes the offline install run: only hash-pinned lines naming
    listed files inside the bundle folder, with the hash the check verified; and requirements
    that pass the rule and name a listed file."""
    from packaging.utils import canonicalize_name, parse_wheel_filename

    from wizard.core.install.bundle import hashed_requirement_lines, offline_install_argv
    from wizard.core.install.requirements import check_requirement

    world = _world()
    argv = offline_install_argv("python", "PINNED")
    assert argv[-2:] == ["-r", "PINNED"] and "--require-hashes" in argv and "--no-index" in argv
    assert not any(a.startswith(("--find-links", "--index-url", "--extra-index-url")) for a in argv)
    listed = {f.filename for f in manifest.files}
    root = folder.resolve()
    for variant in [None, *manifest.variant_sets]:
        files = manifest.files_for(variant)
        assert files, "an accepted bundle installs nothing"
        for line in hashed_requirement_lines(folder, files):
            m = _LINE.fullmatch(line)
            assert m, f"not a hash-pinned file line: {line!r}"
            path = Path(url2pathname(unquote(urlsplit(m.group(2)).path)))
            assert path.parent == root and path.name in listed, f"outside the bundle: {line!r}"
            assert world["sha"].get(path.name) == m.group(3), f"a hash the check did not verify: {line!r}"
            assert canonicalize_name(parse_wheel_filename(path.name)[0]) == m.group(1)
        names = {parse_wheel_filename(f.filename)[0] for f in files}
        for text in manifest.requirements_for(variant):
            req = check_requirement(text).requirement
            assert req.url is None and not text.lstrip().startswith("-")
            assert canonicalize_name(req.name) in names, f"{text!r} names no file of the bundle"


def _bundle_run(text: str) -> str:
    from wizard.app.bundle import choose_variant_for
    from wizard.core.install.bundle import MANIFEST, BundleError, check_bundle

    world = _world()
    folder: Path = world["folder"]
    (folder / MANIFEST).write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        manifest = check_bundle(folder)
        choose_variant_for(manifest, None, None)
    except BundleError as exc:
        refused(exc)
        return _outcome("bundle-json", "refused")
    _check_install_arguments(manifest, folder)
    assert world["evil"].exists()  # the test's own: it stays outside, never copied in
    return _outcome("bundle-json", "result")


# --- a course profile's packages, nesting and numbers -------------------------------------------------------------
HOSTILE_PACKAGES = [
    "gsw-evil @ file:///tmp/gsw_evil-6.6-py3-none-any.whl", "x @ http://127.0.0.1:9/x.whl",
    "x @ https://example.org/x-1.0-py3-none-any.whl", "x @ git+https://github.com/a/b", "git+https://github.com/a/b",
    "/tmp/evil.whl", "./evil", "evil-1.0-py3-none-any.whl", "-e .", "--index-url=http://127.0.0.1:9/simple", "-r r.txt",
    "torch\\n--find-links /x", "torch\\u001b[2J", "C:\\\\evil.whl", "transformers>=4.40", "accelerate[testing]",
    "datasets; python_version >= '3.9'",
]
_HEAD = 'schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Lab"\n'


@st.composite
def _hostile_course(draw: Any) -> str:
    kind = draw(st.sampled_from(["packages", "deep", "number", "lessons", "dotted"]))
    if kind == "packages":
        chosen = draw(st.lists(st.sampled_from(HOSTILE_PACKAGES), min_size=1, max_size=4))
        return _HEAD + "packages = [" + ", ".join(json.dumps(p).replace("\\\\", "\\") for p in chosen) + "]\n"
    if kind == "deep":
        n = draw(st.sampled_from([19, 20, 21, 100, 1000, 8000, 20000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ("{x=", "}")]))
        return _HEAD + "a = " + opener * n + ("1" if opener != "[" else "") + closer * n + "\n"
    if kind == "number":
        value = draw(st.sampled_from(["nan", "-nan", "+nan", "inf", "-inf", "1e400", "1e308", "-1", "0", "1024",
                                      "1024.0001"]))
        where = draw(st.sampled_from(["min_vram_gb = {v}\n", "[[lessons]]\nid = \"mnist_cnn\"\nvram_gb = {v}\n",
                                      "[extra]\nw = {v}\n"]))
        text = where.format(v=value)
        return (_HEAD + text) if not text.startswith("min") else _HEAD.replace('name = "Lab"\n',
                                                                               'name = "Lab"\n' + text)
    if kind == "lessons":
        ids = draw(st.lists(st.sampled_from(["mnist_cnn", "week\\n", "a", "a ", "", "x" * 81, "resnet50_train"]),
                            min_size=1, max_size=4))
        return _HEAD + "".join(f'[[lessons]]\nid = "{i}"\nvram_gb = 1.5\n' for i in ids)
    n = draw(st.sampled_from([10, 25, 3000]))
    return _HEAD + "[extra]\n" + ".".join(f"k{i}" for i in range(n)) + " = 1\n"


def _course_install_inputs() -> st.SearchStrategy[bytes]:
    texts = seeds.course_profiles()
    return saved_bytes(st.one_of(_hostile_course(), mutated_text(texts), _hostile_course().flatmap(
        lambda t: mutated_text([t], max_edits=2))))


def _course_install_run(data: bytes) -> str:
    from wizard.core.course.lessons import judge_course
    from wizard.core.course.profile import MAX_COURSE_BYTES, CourseError, add_extras, parse_course
    from wizard.core.install.job import InstallOptions
    from wizard.core.install.requirements import check_requirement

    try:
        profile = parse_course(read_capped(data, MAX_COURSE_BYTES), "course.toml")
    except CourseError as exc:
        refused(exc)
        return _outcome("course-install", "refused")
    options = add_extras(profile, InstallOptions(["torch==2.6.0"], "https://download.pytorch.org/whl/cu126"))
    for text in options.requirements:
        req = check_requirement(text).requirement
        assert req.url is None and not text.lstrip().startswith("-"), text
    json.dumps(profile.to_json(), allow_nan=False)  # no nan or inf reaches the report
    ids = [ls.id for ls in profile.lessons]
    assert len(ids) == len(set(ids)) and all("\n" not in i for i in ids)
    gib = 2**30
    for gpus in ([("Tesla T4", 16 * gib, 0)], []):
        judged = judge_course(profile, gpus, 32 * gib, "ko")
        judged.lines("en")
        json.dumps(judged.to_json("ko"), allow_nan=False)
    return _outcome("course-install", "result")


INSTALL_TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("bundle-json", "install --from-bundle (bundle.json)", _bundle_inputs, _bundle_run),
    Target("course-install", "--course FILE packages and lessons", _course_install_inputs, _course_install_run),
)}

__all__ = ["HOSTILE_PACKAGES", "INSTALL_TARGETS"]
