"""``gpu-setup-wizard storage --clean --wizard-envs``: what the Windows uninstaller runs on /PURGE
(issue 23). A student on a Hangul profile has the wizard's environments under the shared ASCII
root (``C:\\GPU-Setup-Wizard\\envs``, here a stand-in folder outside the home), which the uninstaller
cannot delete whole: it holds other students' environments. The command removes exactly the
environments this user's install records say the wizard made, each under the rule ``--env PATH``
goes through; everything else in the root survives.

Real venvs, recorded the way the wizard records them (its own StateStore writing an EnvState);
the command line in-process (tests/cli_runner.py), its stdin not a terminal.
"""

from __future__ import annotations

import json
import os
import venv
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.core.install.recovery import EnvState, StateStore, default_state_dir
from wizard.core.storage import cleanup as C

pytestmark = [pytest.mark.slow,  # makes venvs
              pytest.mark.skipif(os.name == "nt", reason="symlinks and POSIX paths")]


def _venv(path: Path) -> Path:
    venv.create(path, with_pip=False)
    assert (path / "pyvenv.cfg").is_file()
    return path


def _record(store: StateStore, path: Path, created_by_wizard: bool = True) -> None:
    """The record the wizard's install writes for an environment it worked on."""
    store.save(EnvState(env_path=str(path), target={"kind": "new-venv" if created_by_wizard else "existing-venv",
                                                   "path": str(path)},
                        created_by_wizard=created_by_wizard, status="complete",
                        steps_done=["prepare", "create", "inspect", "resolve", "plan", "download", "install"]))


@pytest.fixture()
def machine(student_home, tmp_path, monkeypatch):
    """This student's home, a stand-in for the PC's shared ASCII root, and what is in it."""
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "C" / "GPU-Setup-Wizard" / "envs"
    root.mkdir(parents=True)
    mine = StateStore()  # this user's records, under the student's home
    assert str(default_state_dir()).startswith(str(student_home))
    theirs = StateStore(tmp_path / "other student" / "state")  # another user's records
    m = {
        "home": student_home, "root": root, "mine": mine,
        # the wizard made these for this student: the ASCII root's default, and a folder typed in
        "made": _venv(root / "torch-cpu"),
        "typed": _venv(student_home / "내 프로젝트" / "torch env"),
        # the same root: another student's environment (their records), a look-alike nobody recorded,
        # an environment this student chose to install into (recorded, not made by the wizard)
        "other_users": _venv(root / "torch-cu128"),
        "look_alike": _venv(root / "look-alike"),
        "existing": _venv(root / "existing"),
        # recorded as the wizard's, but a link now stands at its path: to another student's venv
        "elsewhere": _venv(tmp_path / "elsewhere" / "venv"),
    }
    (root / "linked").symlink_to(m["elsewhere"], target_is_directory=True)
    for key in ("made", "typed"):
        _record(mine, m[key])
    _record(mine, root / "linked")
    _record(mine, m["existing"], created_by_wizard=False)
    _record(theirs, m["other_users"])
    return m


def _items(doc):
    return {i["path"]: i for i in doc["cleanup"]["items"]}


def _survivors(m):
    return {k: (Path(m[k]) / "pyvenv.cfg").is_file() for k in ("other_users", "look_alike", "existing", "elsewhere")}


def test_dry_run_lists_the_wizards_environments_and_deletes_nothing(machine):
    m = machine
    res = run_cli("storage", "--dry-run", "--wizard-envs", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    doc = res.json
    assert doc["dry_run"] is True and doc["wizard_envs"]["unreadable"] == []
    assert sorted(doc["wizard_envs"]["environments"]) == sorted(
        str(p) for p in (m["made"], m["typed"], m["root"] / "linked"))
    items = _items(doc)
    assert set(items) == {str(m["made"]), str(m["typed"]), str(m["root"] / "linked")}  # no cache, nothing else
    for key in ("made", "typed"):
        item = items[str(m[key])]
        assert item["refused"] is None and "pyvenv.cfg" in item["deletes"] and item["expected_freed"] > 0
    assert items[str(m["root"] / "linked")]["refused"] == "storage.delete.refused.link"
    assert all((Path(m[k]) / "pyvenv.cfg").is_file() for k in ("made", "typed"))
    assert all(_survivors(m).values())

    en = run_cli("storage", "--dry-run", "--wizard-envs")
    assert en.exit_status == 0, en.stderr
    assert "Environments the wizard made for this user" in en.stdout and "Dry run: nothing is deleted" in en.stdout
    assert str(m["made"]) in en.stdout and "symbolic link" in en.stdout
    ko = run_cli("storage", "--dry-run", "--wizard-envs", lang="ko")
    assert ko.exit_status == 0, ko.stderr
    assert "마법사가 이 사용자에게 만든 환경" in ko.stdout and "미리 보기" in ko.stdout and "심볼릭 링크" in ko.stdout
    assert all((Path(m[k]) / "pyvenv.cfg").is_file() for k in ("made", "typed"))


def test_clean_removes_exactly_the_wizards_environments(machine):
    m = machine
    # without a terminal and without --yes: asks for --yes, touches nothing
    res = run_cli("storage", "--clean", "--wizard-envs")
    assert res.exit_status == 3, (res.stdout, res.stderr)
    assert "--yes" in res.stdout + res.stderr
    assert (m["made"] / "pyvenv.cfg").is_file() and (m["typed"] / "pyvenv.cfg").is_file()

    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    items = _items(res.json)
    assert items[str(m["made"])]["done"] and items[str(m["typed"])]["done"]
    assert items[str(m["made"])]["freed"] > 0
    assert not m["made"].exists() and not m["typed"].exists()
    assert (m["home"] / "내 프로젝트").is_dir()  # the folder the student typed the env into stays
    assert _survivors(m) == dict.fromkeys(_survivors(m), True)
    assert (m["root"] / "linked").is_symlink() and m["root"].is_dir()
    # the removed environments' records went with them; the refused one and the student's own stay
    left = {s.env_path for s in m["mine"].all()}
    assert left == {str(m["root"] / "linked"), str(m["existing"])}

    again = run_cli("storage", "--clean", "--wizard-envs", "--yes", lang="ko")
    assert again.exit_status == 0, again.stderr
    assert "심볼릭 링크" in again.stdout and _survivors(m) == dict.fromkeys(_survivors(m), True)


def test_a_recorded_environment_that_fails_the_rule_is_skipped_and_said(machine):
    """The record is the user's own file: it may name a folder that now holds other things, or
    HOME itself. Each goes through the deletion rule and stays, with why."""
    m = machine
    (m["made"] / "src").mkdir()
    (m["made"] / "src" / "train.py").write_text("print('mine')\n", encoding="utf-8")
    (m["home"] / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    _record(m["mine"], m["home"])
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    assert "src" in res.stdout and "not part of an environment" in res.stdout, res.stdout
    assert "home folder" in res.stdout, res.stdout
    assert (m["made"] / "src" / "train.py").is_file() and (m["made"] / "pyvenv.cfg").is_file()
    assert not m["typed"].exists()  # the others still go
    assert (m["home"] / "내 프로젝트").is_dir() and (m["home"] / "pyvenv.cfg").is_file()


def test_a_link_above_the_recorded_environment_is_not_followed(machine, tmp_path):
    """Another user replaced a folder on the recorded path (``C:\\GPU-Setup-Wizard\\envs`` itself,
    say) with a link: the path now leads to other environments."""
    m = machine
    real = tmp_path / "D" / "envs"
    _venv(real / "torch-cpu")
    hijacked = tmp_path / "C2" / "GPU-Setup-Wizard"
    hijacked.mkdir(parents=True)
    (hijacked / "envs").symlink_to(real, target_is_directory=True)
    _record(m["mine"], hijacked / "envs" / "torch-cpu")
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    item = _items(res.json)[str(hijacked / "envs" / "torch-cpu")]
    assert item["refused"] == "storage.delete.refused.link" and item["refused_params"]["path"] == str(hijacked / "envs")
    assert (real / "torch-cpu" / "pyvenv.cfg").is_file()


def test_bad_record_files_give_a_message_not_a_traceback(machine):
    m = machine
    store = m["mine"].root
    (store / "0-not-json.json").write_text("{ this is not json", encoding="utf-8")
    (store / "1-a-list.json").write_text("[1, 2]", encoding="utf-8")
    bad_path = EnvState(env_path="x", target={}, created_by_wizard=True).to_json()
    bad_path["env_path"] = ["C:\\", "Windows"]
    (store / "2-bad-path.json").write_text(json.dumps(bad_path), encoding="utf-8")
    bad_target = EnvState(env_path=str(m["look_alike"]), target={}, created_by_wizard=True).to_json()
    bad_target["target"] = "new-venv"
    (store / "3-bad-target.json").write_text(json.dumps(bad_target), encoding="utf-8")
    (store / "4-binary.json").write_bytes(b"\xff\xfe\x00garbage")
    for lang, words in (("en", "cannot be read"), ("ko", "읽을 수 없습니다")):
        res = run_cli("storage", "--dry-run", "--wizard-envs", lang=lang)
        assert res.exit_status == 0 and "Traceback" not in res.stderr + res.stdout, (res.stdout, res.stderr)
        for name in ("0-not-json", "1-a-list", "2-bad-path", "3-bad-target", "4-binary"):
            assert f"{name}.json" in res.stdout and words in res.stdout, (name, res.stdout)
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    assert len(res.json["wizard_envs"]["unreadable"]) == 5
    assert not m["made"].exists() and not m["typed"].exists()  # the readable records still count
    assert (m["look_alike"] / "pyvenv.cfg").is_file()  # named only by an unreadable record: stays
    assert _survivors(m) == dict.fromkeys(_survivors(m), True)


def test_a_store_that_is_not_a_folder_is_said(student_home):
    store = default_state_dir()
    store.parent.mkdir(parents=True)
    store.write_text("not a folder", encoding="utf-8")
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes")
    assert res.exit_status == 0 and "Traceback" not in res.stderr, (res.stdout, res.stderr)
    assert "cannot be read" in res.stdout and str(store) in res.stdout
    none = run_cli("storage", "--dry-run", "--wizard-envs", "--json")
    assert none.json["cleanup"]["items"] == []


def test_no_records_nothing_to_remove(student_home):
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", lang="ko")
    assert res.exit_status == 0 and "지울 것이 없습니다" in res.stdout, (res.stdout, res.stderr)
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes")
    assert res.exit_status == 0 and "nothing to remove" in res.stdout, (res.stdout, res.stderr)


def test_the_flag_needs_clean_or_dry_run_and_is_in_the_help(student_home):
    res = run_cli("storage", "--wizard-envs")
    assert res.exit_status == 2 and "--wizard-envs" in res.stderr and "--clean" in res.stderr
    for lang, words in (("en", "every environment the wizard made"), ("ko", "마법사가 이 사용자에게 만들어 준 환경")):
        help_text = run_cli("storage", "--help", lang=lang).stdout
        assert "--wizard-envs" in help_text and words in " ".join(help_text.split()), help_text


def test_a_folder_made_after_the_record_is_not_the_recorded_environment():
    """Where the file system keeps a folder's creation time (Windows, macOS): a stale record (its
    environment deleted by hand) whose path now holds a folder made later, e.g. another student's
    environment of the same default name in the shared root."""
    record = "2026-12-01T10:00:00+00:00"
    t0 = C._record_time(record)
    assert t0 is not None
    assert C.born_after_record(t0 + 3600, record)  # made an hour after the wizard last wrote it
    assert not C.born_after_record(t0 - 30, record)  # made before: the wizard's own
    assert not C.born_after_record(t0 + 60, record)  # a run that died inside "create": within slack
    assert not C.born_after_record(None, record)  # no creation time (Linux): not judged
    assert not C.born_after_record(t0 + 3600, "not a time")
    assert C._record_time("2026-12-01T10:00:00") == t0  # no zone: UTC, as the wizard writes (not local time)


def test_env_given_beside_wizard_envs_is_planned_too_and_checked_the_same(machine, tmp_path):
    m = machine
    res = run_cli("storage", "--dry-run", "--wizard-envs", "--json", "--env", str(m["look_alike"]))
    assert res.exit_status == 0, (res.stdout, res.stderr)
    items = _items(res.json)
    assert items[str(m["look_alike"])]["refused"] is None  # named by the student: planned like --env alone
    assert str(m["look_alike"]) not in res.json["wizard_envs"]["environments"]
    docs = tmp_path / "my documents"
    docs.mkdir()
    (docs / "thesis.txt").write_text("keep me", encoding="utf-8")
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--env", str(docs))
    assert res.exit_status == 2 and "is not an environment" in res.stderr, (res.stdout, res.stderr)
    assert (docs / "thesis.txt").is_file() and (m["made"] / "pyvenv.cfg").is_file()  # refused before anything


# --------------------------------------------------------------------------------------------
# The kernels the wizard registered for the environments the purge removes
# --------------------------------------------------------------------------------------------
def _kernel(data_dir: Path, name: str, env: Path, marked_for: Path | None = None) -> Path:
    """A kernelspec as ``ipykernel install`` writes it (kernel.json and a logo), its argv[0] the
    python of ``env``; ``marked_for``: marked by the wizard's own marking for that environment."""
    from tests.kernel_env import write_spec
    from wizard.core.verify.kernel_install import mark_kernelspec

    folder = write_spec(data_dir, name, str(env / "bin" / "python"), f"PyTorch – {env.name}")
    (folder / "logo-32x32.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    if marked_for is not None:
        mark_kernelspec(str(folder), str(marked_for))
    return folder


@pytest.fixture()
def kernels(machine, tmp_path, monkeypatch):
    """This student's Jupyter folder (inside the home, as ``--user`` registers) and kernels in it:
    the wizard's kernel of an environment it removes, of environments that stay, the student's own
    (unmarked) kernel of that environment, one marked for another environment, one with a file
    the student put in it, and one whose folder is a link."""
    m = machine
    data = m["home"] / ".local" / "share" / "jupyter"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data))
    monkeypatch.setenv("APPDATA", str(m["home"] / "AppData" / "Roaming"))
    monkeypatch.setenv("JUPYTER_PATH", "")
    k = {
        "goes": _kernel(data, "gsw-torch-cpu-0a1b2c", m["made"], marked_for=m["made"]),
        "of_existing": _kernel(data, "gsw-existing-3d4e5f", m["existing"], marked_for=m["existing"]),
        "of_other_user": _kernel(data, "gsw-torch-cu128-6a7b8c", m["other_users"], marked_for=m["other_users"]),
        "of_link": _kernel(data, "gsw-linked-9d0e1f", m["root"] / "linked", marked_for=m["root"] / "linked"),
        "unmarked": _kernel(data, "python3-torch", m["made"]),  # the student's own, or registered before the mark
        "mark_elsewhere": _kernel(data, "gsw-mixed-112233", m["made"], marked_for=m["existing"]),
        "foreign": _kernel(data, "gsw-torch-env-445566", m["typed"], marked_for=m["typed"]),
    }
    (k["foreign"] / "notes.txt").write_text("my notes\n", encoding="utf-8")
    target = _kernel(tmp_path / "kernel elsewhere", "gsw-torch-cpu-778899", m["made"], marked_for=m["made"])
    k["link"] = data / "kernels" / "gsw-torch-cpu-778899"
    k["link"].symlink_to(target, target_is_directory=True)
    k["link_target"] = target
    return k


def _kernel_items(doc):
    return {i["path"]: i for i in doc["cleanup"]["items"] if i["kind"] == "kernelspec"}


def _stayed(k, *keys):
    return {key: (k[key] / "kernel.json").is_file() for key in keys}


STAY = ("of_existing", "of_other_user", "of_link", "unmarked", "mark_elsewhere", "foreign", "link_target")


def test_dry_run_lists_the_kernels_of_the_removed_environments(machine, kernels):
    m, k = machine, kernels
    res = run_cli("storage", "--dry-run", "--wizard-envs", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    items = _kernel_items(res.json)
    # only the marked kernels that run a removed environment; the others are not in the plan at all
    assert set(items) == {str(k["goes"]), str(k["foreign"]), str(k["link"])}, items
    goes = items[str(k["goes"])]
    assert goes["refused"] is None and goes["env_path"] == str(m["made"])
    assert sorted(goes["deletes"]) == ["kernel.json", "logo-32x32.png"] and goes["expected_freed"] > 0
    foreign = items[str(k["foreign"])]
    assert foreign["refused"] == "storage.delete.refused.foreign_kernelspec" and foreign["env_path"] == str(m["typed"])
    assert "notes.txt" in foreign["refused_params"]["names"]
    link = items[str(k["link"])]
    assert link["refused"] == "storage.delete.refused.link" and link["refused_params"]["path"] == str(k["link"])
    order = [i["path"] for i in res.json["cleanup"]["items"]]
    assert order.index(str(k["goes"])) == order.index(str(m["made"])) + 1  # right after its environment
    assert all(_stayed(k, "goes", *STAY).values())

    en = run_cli("storage", "--dry-run", "--wizard-envs")
    assert en.exit_status == 0, en.stderr
    assert f"Jupyter kernel: {k['goes']}" in en.stdout and f"registered by the wizard for {m['made']}" in en.stdout
    assert "not part of a Jupyter kernelspec (notes.txt)" in en.stdout, en.stdout
    assert str(k["unmarked"]) not in en.stdout and str(k["of_existing"]) not in en.stdout
    ko = run_cli("storage", "--dry-run", "--wizard-envs", lang="ko")
    assert ko.exit_status == 0, ko.stderr
    assert f"Jupyter 커널: {k['goes']}" in ko.stdout and f"마법사가 {m['made']} 환경에 등록한 커널" in ko.stdout
    assert "Jupyter 커널 설정의 일부가 아닌 것이 1개" in ko.stdout and "심볼릭 링크" in ko.stdout, ko.stdout
    assert all(_stayed(k, "goes", *STAY).values())


def test_clean_removes_the_kernel_with_its_environment_and_nothing_else(machine, kernels):
    m, k = machine, kernels
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    items = _kernel_items(res.json)
    goes = items[str(k["goes"])]
    assert goes["done"] and goes["freed"] > 0 and goes["error"] is None and goes["after"] == 0
    assert not k["goes"].exists()
    assert not m["made"].exists() and not m["typed"].exists()  # the environments went as before
    assert _stayed(k, *STAY) == dict.fromkeys(STAY, True)
    assert (k["foreign"] / "notes.txt").is_file() and k["link"].is_symlink()
    assert not items[str(k["foreign"])]["done"] and not items[str(k["link"])]["done"]
    assert (m["home"] / ".local" / "share" / "jupyter" / "kernels").is_dir()

    again = run_cli("storage", "--clean", "--wizard-envs", "--yes")
    assert again.exit_status == 0, again.stderr
    assert _stayed(k, *STAY) == dict.fromkeys(STAY, True)


def test_a_kernel_stays_when_its_environment_is_refused(machine, kernels):
    """The wizard's kernel of an environment the rule refuses (a file the student put in it)
    stays with that environment: a kernel never goes without its environment."""
    m, k = machine, kernels
    (m["made"] / "train.py").write_text("print('mine')\n", encoding="utf-8")
    res = run_cli("storage", "--clean", "--wizard-envs", "--yes", "--json")
    assert res.exit_status == 0, (res.stdout, res.stderr)
    assert str(k["goes"]) not in _kernel_items(res.json)
    assert (k["goes"] / "kernel.json").is_file() and (m["made"] / "pyvenv.cfg").is_file()
    assert not m["typed"].exists()


def test_a_kernel_whose_environment_was_not_removed_in_the_run_stays(machine, kernels):
    """Planned with its environment, but that environment's removal failed: the kernel is not
    removed (said as its environment staying), so it never points at a half-removed one."""
    from wizard.core.storage import cleanup as core_clean

    m, k = machine, kernels
    env = core_clean.plan_environment(str(m["made"]), [], busy=lambda p: False)
    plan = core_clean.CleanPlan(core_clean.with_kernelspecs([env], [_marked(k["goes"], m["made"])]))
    assert [i.kind for i in plan.items] == ["env", "kernelspec"] and plan.items[1].refused is None

    def fails(item):
        raise OSError("the environment could not be removed")

    core_clean.run_cleanup(plan, fails)
    assert plan.items[0].error and plan.items[1].refused == "storage.refused.kernelspec_env_stays"
    assert (k["goes"] / "kernel.json").is_file() and (m["made"] / "pyvenv.cfg").is_file()


def _marked(folder: Path, env: Path):
    from wizard.core.verify.kernel_install import marked_kernelspecs

    return next(x for x in marked_kernelspecs([str(folder.parent.parent)]) if x.folder == str(folder))


def test_which_kernels_run_in_an_environment(machine, tmp_path):
    """The mark must name the environment and argv[0] lie inside it, compared as resolved,
    case-normalised folders; a relative argv[0] is nobody's."""
    from wizard.core.verify.kernel_install import MarkedKernel

    made = machine["made"]
    py = str(made / "bin" / "python")
    assert C.runs_in(MarkedKernel("k", py, str(made)), str(made))
    assert C.runs_in(MarkedKernel("k", py, str(made) + os.sep), str(made))
    assert not C.runs_in(MarkedKernel("k", py, str(machine["existing"])), str(made))
    assert not C.runs_in(MarkedKernel("k", str(machine["existing"] / "bin" / "python"), str(made)), str(made))
    assert not C.runs_in(MarkedKernel("k", "python", str(made)), str(made))
    assert not C.runs_in(MarkedKernel("k", str(made) + "-2/bin/python", str(made)), str(made))  # a sibling's prefix
    alias = tmp_path / "alias"
    alias.symlink_to(made.parent, target_is_directory=True)  # the same folder by another way: resolved
    assert C.runs_in(MarkedKernel("k", str(alias / made.name / "bin" / "python"), str(made)), str(made))
