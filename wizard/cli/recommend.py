"""``gpu-setup-wizard recommend``: the PyTorch build this machine can run, and why.

Three sources of machine facts: this machine (detected), another machine's ``doctor --json``
(``--from-doctor``), or facts typed on the command line (``--os``/``--driver``/``--gpu-cc``, the
teaching and support form). Exit statuses: SUCCESS; BAD_INPUT for facts the recommender cannot take.
"""

from __future__ import annotations

import argparse
from typing import Any

from wizard.cli.common import error, lang_of, print_json, read_input
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


def what_if_facts(args: argparse.Namespace) -> Any:
    """MachineFacts typed on the command line."""
    from wizard.core.recommend.inputs import MachineFacts

    cuda = args.cuda
    if args.driver and not cuda:
        from wizard.core.recommend import compat

        cuda = compat.load().cuda_for_driver(args.driver, "windows" if args.os == "windows" or args.wsl else "linux")
    return MachineFacts(os=args.os or "linux", arch=args.arch or "x86_64", python=args.python or "3.12",
                        driver_version=args.driver, cuda_driver=cuda, gpu_ccs=list(args.gpu_cc), is_wsl=args.wsl,
                        gpu_names=["" for _ in args.gpu_cc])


def run(args: argparse.Namespace) -> int:
    """``recommend``: (check for newer data) → parse → recommend → print (text, or ``--json``)."""
    lang = lang_of(args)
    from wizard.cli.course import course_session

    course = course_session(args, lang)  # --course: refused before anything else runs
    if isinstance(course, ExitStatus):
        return course
    if not getattr(args, "no_update_check", False):
        check_data_update(lang)
    try:
        found = recommend_for(args, lang, course) if not getattr(args, "gpu", None) else card_for(args, lang)
    except ValueError as exc:
        return error(t("recommend.cli.bad_input", lang, error=exc))
    if isinstance(found, ExitStatus):
        return found
    rec, note = found
    from wizard.app.course import pin_notes

    return print_recommendation(args, rec, note, lang, course_notes=pin_notes(course, rec))


def check_data_update(lang: str) -> None:
    """A short (2 s) look for a newer signed table, at most once a day; one line on stderr when
    something was updated or refused, nothing otherwise (off: GSW_COMPAT_UPDATE=0 or the setting)."""
    import sys

    from wizard.app.recommend import check_data_update

    result = check_data_update(timeout=2.0)
    if result.status in ("updated", "refused"):
        print(result.text(lang), file=sys.stderr)


def card_for(args: argparse.Namespace, lang: str) -> Any:
    """``--gpu NAME``: the recommendation for a card from the catalogue, with what it needs (the
    driver that first knows it, each build's driver bars); a current driver is assumed when none
    is given. An unknown or ambiguous name: a "did you mean" line and BAD_INPUT."""
    from wizard.core.recommend import advice, compat
    from wizard.core.recommend.compat_model import parse_cc
    from wizard.core.recommend.recommender import recommend

    found = advice.find_card(args.gpu)
    if found.ambiguous:
        return error(t("recommend.cli.gpu.ambiguous", lang, name=args.gpu, matches=", ".join(found.ambiguous)))
    if found.entry is None:
        if found.suggestions:
            return error(t("recommend.cli.gpu.unknown", lang, name=args.gpu, suggestions=", ".join(found.suggestions)))
        return error(t("recommend.cli.gpu.unknown_none", lang, name=args.gpu, known=_known_cards()))
    card = found.entry
    if not card.get("compute_capability"):
        return error(t("recommend.cli.gpu.not_nvidia", lang, gpu=card["name"]))
    kb = compat.load()
    cc = card["compute_capability"]
    assumed = None
    if not args.driver and not args.cuda:
        driver_os = "windows" if args.os == "windows" or args.wsl else "linux"
        assumed = _current_driver(kb, driver_os)
    facts = what_if_facts(argparse.Namespace(**{**vars(args), "gpu_cc": [cc], "driver": args.driver or assumed}))
    facts.gpu_names = [card["name"]]
    rec = recommend(facts, _wishes(args))
    rec.advice.insert(0, advice.card_plan(card["name"], parse_cc(cc), card.get("architecture", "?"), facts, kb))
    note = t("recommend.plan.assumed_driver", lang, driver=assumed) if assumed else None
    return rec, note


def _current_driver(kb: Any, driver_os: str) -> str:
    """The toolkit driver of the newest CUDA build the table knows (what a new card ships with today)."""
    from wizard.core.recommend.compat_model import version

    cuda = [v for v in kb.variants.values() if v.kind == "cuda"]
    newest = max(cuda, key=lambda v: v.sort_key)
    return max((newest.toolkit_driver[driver_os], newest.minor_compat_driver[driver_os]), key=version)


def _known_cards() -> str:
    from wizard.core.base.resources import load_json

    return ", ".join(g["name"] for g in load_json("gpus.json")["gpus"] if g.get("compute_capability"))


def _wishes(args: argparse.Namespace) -> Any:
    from wizard.core.recommend.inputs import Wishes

    return Wishes(torch=args.torch, newest=args.newest, cpu_only=args.cpu_only, variant=args.variant,
                  index_url=args.index_url)


def recommend_for(args: argparse.Namespace, lang: str, course_session: Any = None) -> Any:
    """(recommendation, a note on the chosen Python or None), or an exit status after an error line.
    ``course_session``: a Session holding ``--course``'s profile, whose pin is the torch wish."""
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend

    wishes = Wishes(torch=args.torch, newest=args.newest, cpu_only=args.cpu_only, variant=args.variant,
                    index_url=args.index_url)
    pinned = course_session is not None and course_session.course is not None
    if args.from_doctor:
        from wizard.core.base.schema import SchemaError
        from wizard.core.base.typed import DocumentTypeError
        from wizard.core.machine.doctor import load_doctor_json
        from wizard.core.machine.doctor_import import detection_from_doctor_json
        from wizard.core.recommend.choose_python import choose_python

        try:
            doc = load_doctor_json(read_input(args.from_doctor, lang))
            detection = detection_from_doctor_json(doc)
        except OSError as exc:
            return error(t("recommend.cli.bad_from_doctor", lang, path=args.from_doctor, error=exc.strerror or exc))
        except (SchemaError, DocumentTypeError) as exc:
            return error(t("recommend.cli.bad_from_doctor", lang, path=args.from_doctor, error=exc.text(lang)))
        if pinned:
            from wizard.app import recommend as app_recommend

            course_session.detection = detection  # the app layer applies the pin, as for this machine
            return app_recommend.recommend_for(course_session, wishes, args.python).recommendation, None
        return choose_python(detection, wishes, args.python).recommendation, None
    if args.os or args.driver or args.gpu_cc:
        facts = what_if_facts(args)
        if pinned:
            from wizard.app.course import course_wishes

            wishes = course_wishes(course_session, wishes, facts, recommend(facts, wishes).best)
        return recommend(facts, wishes), None
    from wizard.app import detect as app_detect
    from wizard.app import recommend as app_recommend
    from wizard.app.session import Session
    from wizard.core.base.host import RealHost

    session = Session(host=RealHost(), lang=lang)
    session.course = course_session.course if course_session is not None else None
    app_detect.detect_machine(session, conda=False)
    choice = app_recommend.recommend_for(session, wishes, args.python)
    note = (t("recommend.cli.python_chosen", lang, version=choice.version, path=choice.interpreter.path)
            if choice.interpreter else t("recommend.cli.python_install", lang, version=choice.version))
    return choice.recommendation, note


def print_recommendation(args: argparse.Namespace, rec: Any, note: str | None, lang: str,
                         course_notes: list[str] | None = None) -> int:
    from wizard.core.recommend.text import format_recommendation

    index_messages: list[str] = []
    if args.check_index and rec.best is not None:
        from wizard.core.recommend.wheel_index import WheelIndex, target_tags

        f = rec.facts
        check = WheelIndex().check_candidate(rec.best, target_tags(f.python, f.os, f.arch))
        index_messages = check.messages(lang)
    if args.json:
        doc = rec.to_json(lang)
        if index_messages:
            doc["index_check"] = index_messages
        if course_notes:
            doc["course"] = {"notes": course_notes}
        print_json(doc)
        return ExitStatus.SUCCESS
    text = format_recommendation(rec, lang, python_note=note, show_all=args.all)
    if course_notes:
        text = "\n".join(course_notes) + "\n\n" + text
    if index_messages:
        text += "\n" + "\n".join(t("recommend.cli.index_check", lang, result=m) for m in index_messages)
    print(text)
    return ExitStatus.SUCCESS


__all__ = ["run", "recommend_for", "print_recommendation", "what_if_facts"]
