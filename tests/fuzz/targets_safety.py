"""Fuzz targets for what the wizard deletes and shows (issue 24): the class view's reports, kernel
names, and storage cleanup plans. Registered in :data:`tests.fuzz.targets.TARGETS` beside the readers.

Beyond the readers' contract (a result or the reader's own refusal, never another exception):

- ``class-view``: one to three handed-in reports (real ``report --json`` documents, mutated, with
  impossible numbers, formula text and control characters spliced into ``facts``, under hostile file
  names) read as a class. The table and both outputs must be made; every CSV cell a spreadsheet would
  run is quoted; no file name or reason printed for the instructor carries a control character; every
  report that was read keeps its row (a copy never pushes another out).
- ``kernel-names``: any text as ``--name``. What :func:`valid_name` accepts is one plain folder name
  (never ``.``/``..``, a separator, a newline): ``kernels/<name>`` is a direct child of ``kernels``.
- ``storage-plan``: a throwaway HOME holding ``Documents``, a download cache and an environment whose
  entries (venv-shaped and foreign names, files, folders, symlinks into ``Documents``, a ``files/`` or
  ``partial/`` that is itself a link) are generated; the cleanup is planned and run, sometimes on HOME
  or its parent. Nothing outside the plan is ever deleted, ``Documents`` is byte for byte what it was,
  a name the cache does not write survives, an environment holding a foreign entry is left whole, and
  the bytes freed are the bytes the dry run said.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.strategies import json_text, mutated_json, saved_bytes
from tests.fuzz.targets import Target, _outcome, refused

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_HOSTILE_TEXT = ["=1+1", " =1+1", "\n=1+1", "\t@SUM(A1)", '"-2+3', "'+cmd", "\x1b[31mred\x1b]0;t\x07", "\x9b2J",
                 "\u202eevil", "<script>x</script>", "ok\n=HYPERLINK(\"x\")", "", "a" * 20000]
_HOSTILE_NUMBERS = [10**400, 2**80, 2**50, -1, 0, 1e308, 1.5, True, "nan", None, 2**63, 8 * 2**30]


def _name_text() -> st.SearchStrategy[str]:
    """A file or folder name: any text without a separator or NUL, never "." or ".."."""
    alphabet = st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",))
    return st.text(alphabet, min_size=1, max_size=24).filter(lambda n: n not in (".", "..") and len(n.encode()) < 200)


# --- the class view ------------------------------------------------------------------------------------------
@st.composite
def _class_inputs(draw: Any) -> list[tuple[str, bytes]]:
    docs = seeds.report_documents()
    files = []
    for i in range(draw(st.integers(1, 3))):
        doc = copy.deepcopy(draw(st.sampled_from(docs)))
        facts = doc.get("facts")
        if isinstance(facts, dict) and draw(st.booleans()):
            gpus = facts.get("gpus") or [{"name": "g"}]
            gpus[0]["vram_bytes"] = draw(st.sampled_from(_HOSTILE_NUMBERS))
            if draw(st.booleans()):
                gpus[0]["name"] = draw(st.sampled_from(_HOSTILE_TEXT))
            facts["gpus"] = gpus * draw(st.sampled_from([1, 2, 70]))
            facts["os"] = draw(st.sampled_from(_HOSTILE_TEXT))
            facts["driver"] = draw(st.one_of(st.sampled_from(_HOSTILE_TEXT), st.text(max_size=10)))
            facts["ram_bytes"] = draw(st.sampled_from(_HOSTILE_NUMBERS))
        if draw(st.booleans()):
            data = json.dumps(draw(mutated_json([doc], max_edits=3))).encode("utf-8")
        elif draw(st.booleans()):
            data = draw(saved_bytes(json_text(st.just(doc))))
        else:
            data = json.dumps(doc).encode("utf-8")
        name = draw(st.one_of(st.sampled_from(["a.json", "b.json", "\x1b[31mx\x07.json", "\x9b.json",
                                               "\u202ecod.json"]), _name_text().map(lambda n: n[:20] + ".json")))
        files.append((f"{i}{name}", data))
    if len(files) > 1 and draw(st.booleans()):
        files.append(("zz-copy.json", files[0][1]))  # a classmate's bytes under another name
    return files


def _runnable(cell: str, starts: tuple[str, ...]) -> bool:
    """A spreadsheet could run ``cell``: a formula character first, or first on any line after blanks,
    quotes and control characters that an import may trim."""
    if cell.startswith(starts):
        return True
    return any(line.lstrip(" \t\"'" + "".join(map(chr, range(32))) + "\x7f")[:1] in ("=", "+", "-", "@")
               and line.lstrip(" \t\"'" + "".join(map(chr, range(32))) + "\x7f") != ""
               for line in re.split(r"[\r\n]", cell))


def _class_run(files: list[tuple[str, bytes]]) -> str:
    from wizard.core.classroom.render import _FORMULA_START, render_csv, render_html
    from wizard.core.classroom.roster import read_roster
    from wizard.core.classroom.table import class_table

    folder = Path(tempfile.mkdtemp(prefix="gsw-fuzz-class-"))
    try:
        for name, data in files:
            (folder / name).write_bytes(data)
        roster = read_roster([folder])
        table = class_table(roster)
        render_html(table, "ko", "now")
        for row in csv.reader(io.StringIO(render_csv(table, "en"))):
            for cell in row:
                assert cell.startswith("'") or not _runnable(cell, _FORMULA_START), repr(cell)
        for s in roster.skipped:
            assert not _CONTROL.search(s.file), repr(s.file)
            for lang in ("en", "ko"):
                assert not _CONTROL.search(s.reason.text(lang)), repr(s.reason.text(lang))
                refused(type("Refusal", (Exception,), {})(s.reason.text(lang)))
        for s in roster.students:
            assert not _CONTROL.search(s.file)
        assert len(roster.students) + len(roster.skipped) == len(files)  # every file: a row or a reason
    finally:
        shutil.rmtree(folder)
    return _outcome("class-view", "result" if roster.students else "refused")


# --- kernel names --------------------------------------------------------------------------------------------
def _kernel_inputs() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=80), st.sampled_from([".", "..", "...", "../x", "a/b", "a\\b", "x\n", " x",
                                                           "-x", "python3", "gsw-venv-abc123", "A" * 64, "A" * 65]))


def _kernel_run(name: str) -> str:
    from wizard.core.verify.kernel_install import valid_name

    if not valid_name(name):
        return _outcome("kernel-names", "refused")
    kernels = os.path.join("data", "kernels")
    target = os.path.normpath(os.path.join(kernels, name))
    assert os.path.dirname(target) == kernels and os.path.basename(target) == name, name
    assert name not in (".", "..") and "\n" not in name and "/" not in name and "\\" not in name
    return _outcome("kernel-names", "result")


# --- storage plans -------------------------------------------------------------------------------------------
_CACHE_NAMES = ["torch-2.13.0-cp311-none-linux_x86_64.whl", "a" * 40 + ".part", "b" * 40 + ".json",
                "x-1.0.tar.gz", "w.whl.metadata", "c" * 40 + ".lock", "notes.txt", "thesis.docx", ".part"]
_ENV_NAMES = ["pyvenv.cfg", "bin", "lib", "lib64", "include", "share", "etc", ".gitignore", "src", ".git",
              "homework.ipynb", ".gpu-setup-wizard-incomplete", "conda-meta"]
_KINDS = ("file", "dir", "link_file", "link_dir")


_ENV_OWN_NAMES = [n for n in _ENV_NAMES if n not in ("src", ".git", "homework.ipynb", "conda-meta")]


def _entries(names: list[str]) -> st.SearchStrategy[list[tuple[str, str]]]:
    """Entries mostly of the given names (so plans delete often), now and then any name."""
    known = st.sampled_from(names)
    return st.lists(st.tuples(st.one_of(known, known, known, _name_text()), st.sampled_from(_KINDS)),
                    max_size=8, unique_by=lambda e: e[0])


def _storage_inputs() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "files": _entries(_CACHE_NAMES), "partial": _entries(_CACHE_NAMES),
        "files_link": st.booleans(), "partial_link": st.booleans(),
        "env": st.one_of(st.lists(st.tuples(st.sampled_from(_ENV_OWN_NAMES), st.sampled_from(_KINDS)), max_size=8,
                                  unique_by=lambda e: e[0]), _entries(_ENV_NAMES)),
        "pyvenv": st.sampled_from([True, True, True, False]),
        "target": st.sampled_from(["env", "env", "env", "env", "home", "home_parent", "documents", "env_link"]),
        "activated": st.sampled_from([False, False, False, True]), "running": st.booleans(),
    })


def _make(folder: Path, entries: list[tuple[str, str]], documents: Path) -> None:
    for name, kind in entries:
        path = folder / name
        if kind == "file":
            path.write_bytes(name.encode("utf-8", "replace")[:50] + b"!")
        elif kind == "dir":
            path.mkdir()
            (path / "inner.bin").write_bytes(b"i" * 7)
        elif kind == "link_file":
            path.symlink_to(documents / "thesis.docx")
        else:
            path.symlink_to(documents)


def _snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                out[p] = "->" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as fh:
                    out[p] = fh.read()
            else:
                out[p] = "dir"
    return out


def _storage_run(case: dict[str, Any]) -> str:
    from wizard.core.base.deletion import VENV_OWN
    from wizard.core.storage import cleanup as C

    top = Path(tempfile.mkdtemp(prefix="gsw-fuzz-storage-"))
    try:
        home = top / "home"
        documents = home / "Documents"
        documents.mkdir(parents=True)
        (documents / "thesis.docx").write_bytes(b"my thesis")
        (documents / ("a" * 40 + ".part")).write_bytes(b"a cache-shaped name of mine")
        (documents / "pyvenv.cfg").write_bytes(b"home = /usr/bin\n")
        cache = home / ".cache" / "gsw" / "downloads"
        cache.mkdir(parents=True)
        for sub in ("files", "partial"):
            if case[f"{sub}_link"]:
                (cache / sub).symlink_to(documents)
            else:
                (cache / sub).mkdir()
                _make(cache / sub, case[sub], documents)
        env = home / "envs" / "e"
        env.mkdir(parents=True)
        if case["pyvenv"]:
            (env / "pyvenv.cfg").write_bytes(b"home = /usr/bin\n")
        _make(env, [(n, k) for n, k in case["env"] if n != "pyvenv.cfg"], documents)
        (home / "envs" / "link").symlink_to(env)
        environ = {"HOME": str(home)}
        if case["activated"]:
            environ["VIRTUAL_ENV"] = str(env)
        target = {"env": env, "home": home, "home_parent": top, "documents": documents,
                  "env_link": home / "envs" / "link"}[case["target"]]
        docs_before = _snapshot(documents)
        tree_before = _snapshot(top)
        items = [C.plan_wizard_cache(str(cache), [], running=case["running"], environ=environ),
                 C.plan_environment(str(target), [], busy=lambda p: False, environ=environ, processes=False)]
        planned = {e.path for i in items if i.plan is not None for e in i.plan.entries}
        expected = {id(i): i.expected_freed for i in items}
        C.run_cleanup(C.CleanPlan(items), remove_env=C.remove_venv_folder)
        tree_after = _snapshot(top)
        gone = set(tree_before) - set(tree_after)
        assert gone <= planned, sorted(gone - planned)[:5]
        assert _snapshot(documents) == docs_before
        for sub in ("files", "partial"):
            for name, kind in case[sub] if not case[f"{sub}_link"] else []:
                shaped = C.CACHE_FILE if sub == "files" else C.CACHE_PARTIAL
                if not shaped.match(name) or kind != "file":
                    assert os.path.lexists(cache / sub / name), (sub, name, kind)
        env_item = items[1]
        foreign = [n for n, _ in case["env"] if n not in VENV_OWN and n != ".gpu-setup-wizard-incomplete"
                   and n != "conda-meta"]
        if foreign or case["activated"] or case["target"] != "env":
            assert env_item.refused is not None, (case["target"], foreign)
        if env_item.refused is not None:
            assert {p: v for p, v in tree_after.items() if p.startswith(str(env))} == \
                {p: v for p, v in tree_before.items() if p.startswith(str(env))}
        for item in items:
            if item.done and item.freed is not None:
                assert item.freed == expected[id(item)], (item.kind, item.freed, expected[id(item)])
    finally:
        shutil.rmtree(top)
    for item in items:
        if item.refused:
            from wizard.core.base.i18n import t

            for lang in ("en", "ko"):
                assert t(item.refused, lang, **item.refused_params).strip()
    return _outcome("storage-plan", "refused" if items[1].refused else "result")  # the environment removed or not


SAFETY_TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("class-view", "class FOLDER (the students' reports)", _class_inputs, _class_run),
    Target("kernel-names", "kernel install --name", _kernel_inputs, _kernel_run),
    Target("storage-plan", "storage --clean (plans on a hostile tree)", _storage_inputs, _storage_run),
)}

__all__ = ["SAFETY_TARGETS", "refused"]
