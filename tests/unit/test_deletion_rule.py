"""The one rule for deleting (wizard/core/base/deletion.py), attacked the way the red team did:
each test builds the attack on real folders (symlinks, a project made with ``python -m venv .``,
a stray ``pyvenv.cfg`` in HOME, a process running from the environment, ``UV_CACHE_DIR`` at a
folder of data) and checks that the student's files survive and the refusal names why."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import venv

import pytest

from wizard.core.base import deletion
from wizard.core.install.recovery import EnvState, RemoveRefused, StateStore, remove_environment
from wizard.core.storage import cleanup as C
from wizard.core.storage import locations as L

pytestmark = [pytest.mark.slow,  # makes venvs
              pytest.mark.skipif(os.name == "nt", reason="symlinks and POSIX paths")]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    (h / "Documents").mkdir(parents=True)
    (h / "Documents" / "thesis.docx").write_text("my thesis", encoding="utf-8")
    (h / "Documents" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(h))
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    return h


def _cache(home):
    cache = home / ".cache" / "gpu-setup-wizard" / "downloads"
    (cache / "files").mkdir(parents=True)
    return cache


def _clean(item):
    return C.run_cleanup(C.CleanPlan([item]), remove_env=C.remove_venv_folder)


# --- finding 4 (red team 2, 17): the download cache ------------------------------------------------------
def test_a_symlinked_partial_folder_is_never_followed(home):
    cache = _cache(home)
    (cache / "files" / "old-1.0-py3-none-any.whl").write_bytes(b"w" * 100)
    (cache / "partial").symlink_to(home / "Documents")
    item = C.plan_wizard_cache(str(cache), [], running=False)
    assert all("Documents" not in p for p in item.files)
    _clean(item)
    assert (home / "Documents" / "thesis.docx").read_text(encoding="utf-8") == "my thesis"
    assert (home / "Documents" / "pyvenv.cfg").exists()
    assert not (cache / "files" / "old-1.0-py3-none-any.whl").exists()  # the cache's own file still goes


def test_a_symlinked_files_folder_is_never_followed(home):
    cache = home / ".cache" / "gpu-setup-wizard" / "downloads"
    cache.mkdir(parents=True)
    (home / "Documents" / "report-1.0-py3-none-any.whl").write_bytes(b"mine")  # even a wheel-shaped name
    (cache / "files").symlink_to(home / "Documents")
    item = C.plan_wizard_cache(str(cache), [], running=False)
    _clean(item)
    assert sorted(os.listdir(home / "Documents")) == ["pyvenv.cfg", "report-1.0-py3-none-any.whl", "thesis.docx"]


def test_only_names_the_cache_writes_are_deleted_and_the_dry_run_size_is_the_freed_size(home):
    cache = _cache(home)
    (cache / "files" / "my notes.txt").write_bytes(b"n" * 6)  # the student's file: stays
    (cache / "files" / "torch-2.13.0-cp311-none-linux_x86_64.whl").write_bytes(b"t" * 12)
    (cache / "partial").mkdir()
    (cache / "partial" / ("a" * 40 + ".part")).write_bytes(b"p" * 7)
    (cache / "partial" / "holiday.jpg").write_bytes(b"j" * 5)
    item = C.plan_wizard_cache(str(cache), [], running=False)
    planned = item.before - item.expected_after
    assert planned == 19 and sorted(os.path.basename(p) for p in item.files) == [
        "a" * 40 + ".part", "torch-2.13.0-cp311-none-linux_x86_64.whl"]
    _clean(item)
    assert (cache / "files" / "my notes.txt").exists() and (cache / "partial" / "holiday.jpg").exists()
    assert item.before - item.after == planned  # what the dry run said is what went
    assert {k.reason for k in item.kept} == {"not_ours"}


def test_a_folder_swapped_for_a_link_after_the_dry_run_is_not_followed(home):
    cache = _cache(home)
    (cache / "partial").mkdir()
    name = hashlib.sha256(b"x").hexdigest()[:40] + ".part"
    (cache / "partial" / name).write_bytes(b"p")
    item = C.plan_wizard_cache(str(cache), [], running=False)
    assert [os.path.basename(p) for p in item.files] == [name]
    (home / "Documents" / name).write_bytes(b"mine")  # the same name in the student's folder
    os.rename(cache / "partial", cache / "partial-old")
    (cache / "partial").symlink_to(home / "Documents")  # swapped between the dry run and the clean
    _clean(item)
    assert (home / "Documents" / name).read_bytes() == b"mine"
    assert item.error and "changed since the plan" in item.error


# --- finding 5 (red team 5): environments -------------------------------------------------------------------
def test_a_project_made_with_venv_dot_is_refused_and_keeps_its_src(home):
    project = home / "my project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.py").write_text("print(1)\n", encoding="utf-8")
    venv.create(project, with_pip=False)
    item = C.plan_environment(str(project), [], busy=lambda p: False)
    assert item.refused == "storage.delete.refused.foreign" and "src" in item.refused_params["names"]
    _clean(item)
    assert (project / "src" / "main.py").exists()


def test_home_with_a_stray_pyvenv_cfg_is_never_an_environment_to_delete(home):
    (home / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    item = C.plan_environment(str(home), [], busy=lambda p: False)
    assert item.refused == "storage.delete.refused.home"
    assert C.plan_environment(str(home.parent), [], busy=lambda p: False).refused is not None
    assert deletion.protected("/") is not None and deletion.protected(str(home)) is not None
    _clean(item)
    assert (home / "Documents" / "thesis.docx").exists()


def test_an_environment_a_running_process_uses_is_not_removed(home):
    env = home / "envs" / "in use"
    venv.create(env, with_pip=False)
    proc = subprocess.Popen([str(env / "bin" / "python"), "-c", "import time; time.sleep(60)"])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not deletion.processes_in(os.path.realpath(env)):
            time.sleep(0.05)
        item = C.plan_environment(str(env), [], busy=lambda p: False)
        assert item.refused == "storage.delete.refused.process" and item.refused_params["pid"] == str(proc.pid)
        _clean(item)
        assert (env / "pyvenv.cfg").exists()
    finally:
        proc.kill()
        proc.wait()
    assert C.plan_environment(str(env), [], busy=lambda p: False).refused is None  # once it has ended


def test_the_activated_environment_is_not_removed(home, monkeypatch):
    env = home / "envs" / "active"
    venv.create(env, with_pip=False)
    monkeypatch.setenv("VIRTUAL_ENV", str(env))
    item = C.plan_environment(str(env), [], busy=lambda p: False)
    assert item.refused == "storage.delete.refused.activated"
    monkeypatch.delenv("VIRTUAL_ENV")
    monkeypatch.setenv("CONDA_PREFIX", str(env))
    assert C.plan_environment(str(env), [], busy=lambda p: False).refused == "storage.delete.refused.activated"


def test_the_clean_deletes_exactly_the_planned_entries(home):
    env = home / "envs" / "plain"
    venv.create(env, with_pip=False)
    item = C.plan_environment(str(env), [], busy=lambda p: False)
    assert item.refused is None and item.expected_after == 0
    assert sorted(item.plan.shown) == sorted(os.listdir(env))
    (env / "lib" / "late.txt").write_text("written after the dry run", encoding="utf-8")
    _clean(item)
    assert (env / "lib" / "late.txt").exists()  # not in the plan: not deleted
    assert not (env / "pyvenv.cfg").exists() and not (env / "bin").exists()


def test_an_environment_with_a_symlinked_subfolder_into_documents_keeps_the_documents(home):
    env = home / "envs" / "linked"
    venv.create(env, with_pip=False)
    (env / "share").symlink_to(home / "Documents")
    item = C.plan_environment(str(env), [], busy=lambda p: False)
    _clean(item)
    assert (home / "Documents" / "thesis.docx").exists()


def test_remove_of_a_wizard_made_env_refuses_a_folder_with_the_students_files(home):
    env = home / "GPU-Setup-Wizard" / "envs" / "course"
    venv.create(env, with_pip=False)
    (env / "homework.ipynb").write_text("{}", encoding="utf-8")
    state = EnvState(env_path=str(env), target={"kind": "new-venv", "path": str(env)}, created_by_wizard=True,
                     status="failed")
    with pytest.raises(RemoveRefused):
        remove_environment(state, host=None, store=StateStore(home / "state"))
    assert (env / "homework.ipynb").exists()


def test_remove_of_a_wizard_made_env_refuses_a_link_to_documents(home):
    link = home / "GPU-Setup-Wizard" / "envs" / "course"
    link.parent.mkdir(parents=True)
    link.symlink_to(home / "Documents")  # Documents holds a pyvenv.cfg: it "looks like" an env
    state = EnvState(env_path=str(link), target={"kind": "new-venv", "path": str(link)}, created_by_wizard=True,
                     status="failed")
    with pytest.raises((RemoveRefused, OSError)):
        remove_environment(state, host=None, store=None)
    assert (home / "Documents" / "thesis.docx").exists()


# --- finding 6 (red team 18): UV_CACHE_DIR at a folder of data ------------------------------------------------
def test_a_uv_cache_dir_of_user_data_is_not_handed_to_uv(home):
    data = home / "data"
    data.mkdir()
    (data / "experiment.csv").write_text("1,2\n", encoding="utf-8")
    ran = []
    item = C.plan_tool_cache(L.Location(L.KIND_UV, str(data), L.SOURCE_TOOL, tool="uv"))
    assert item.refused == "storage.refused.not_tool_cache"
    C.run_cleanup(C.CleanPlan([item]), remove_env=lambda i: None, runner=lambda argv: ran.append(argv) or (0, ""))
    assert ran == [] and (data / "experiment.csv").exists()


def test_a_real_uv_cache_shape_is_accepted(home):
    cache = home / ".cache" / "uv"
    (cache / "wheels-v5").mkdir(parents=True)
    (cache / "CACHEDIR.TAG").write_bytes(C.CACHEDIR_SIGNATURE + b"\n")
    (cache / ".gitignore").write_text("*", encoding="utf-8")
    assert C.plan_tool_cache(L.Location(L.KIND_UV, str(cache), L.SOURCE_TOOL, tool="uv")).refused is None
    (cache / "notes.txt").write_text("mine", encoding="utf-8")
    assert C.plan_tool_cache(L.Location(L.KIND_UV, str(cache), L.SOURCE_TOOL, tool="uv")).refused is not None


def test_a_pip_cache_dir_of_user_data_is_not_purged(home):
    data = home / "pipdata"
    (data / "wheels").mkdir(parents=True)
    (data / "thesis.docx").write_text("x", encoding="utf-8")
    item = C.plan_tool_cache(L.Location(L.KIND_PIP, str(data), L.SOURCE_ENV, tool=sys.executable))
    assert item.refused == "storage.refused.not_tool_cache"


# --- the rule itself ----------------------------------------------------------------------------------------
def test_plan_tree_refuses_a_mount_or_a_link_root_and_never_lists_a_link_target(home, tmp_path):
    env = home / "envs" / "e"
    venv.create(env, with_pip=False)
    (env / "lib" / "docs").symlink_to(home / "Documents")
    plan = deletion.plan_tree(str(env))
    assert plan.refused is None
    assert all(not p.startswith(str(home / "Documents")) for p in plan.files)
    link = home / "envs" / "link"
    link.symlink_to(env)
    assert deletion.plan_tree(str(link)).refused.key == "storage.delete.refused.link"
    result = deletion.execute(plan)
    assert not result.errors and (home / "Documents" / "thesis.docx").exists() and not env.exists()


def test_a_refused_plan_cannot_be_executed(home):
    plan = deletion.plan_tree(str(home))
    assert plan.refused is not None
    with pytest.raises(deletion.DeletionRefused):
        deletion.execute(plan)


def test_plan_own_file_takes_only_our_suffix(home):
    part = home / "bundle" / "torch.whl.part"
    part.parent.mkdir()
    part.write_bytes(b"x")
    assert deletion.execute(deletion.plan_own_file(str(part), (".part",))).deleted == [str(part)]
    assert deletion.plan_own_file(str(home / "Documents" / "thesis.docx"), (".part",)).refused is not None


def test_a_conda_env_is_its_package_records_and_nothing_else(home):
    env = home / "miniforge3" / "envs" / "dl"
    for rel in ("conda-meta", "bin", "lib", "ssl"):
        (env / rel).mkdir(parents=True)
    (env / "conda-meta" / "openssl-3.0-h1.json").write_text(
        '{"name": "openssl", "files": ["bin/openssl", "lib/libssl.so", "ssl/cert.pem"]}', encoding="utf-8")
    (env / "conda-meta" / "history").write_text("", encoding="utf-8")
    assert deletion.env_shape(str(env)) == (True, [])
    (env / "notes.txt").write_text("mine", encoding="utf-8")
    assert deletion.env_shape(str(env)) == (True, ["notes.txt"])
    assert C.plan_environment(str(env), [], busy=lambda p: False).refused == "storage.delete.refused.foreign"
    (env / "conda-meta" / "broken.json").write_text("{", encoding="utf-8")  # records unreadable: not recognisably conda's
    assert deletion.env_shape(str(env))[1] == ["conda-meta"]
