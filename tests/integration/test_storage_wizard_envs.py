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
