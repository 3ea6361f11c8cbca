"""``gpu-setup-wizard recommend``: the PyTorch build this machine can run, and why.

Three sources of machine facts: this machine (detected), another machine's ``doctor --json``
(``--from-doctor``), or facts typed on the command line (``--os``/``--driver``/``--gpu-cc``, the
teaching and support form). Exit statuses: SUCCESS; BAD_INPUT for facts the recommender cannot take.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wizard.cli.common import error, lang_of, print_json, read_input
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.recommend import MachineFacts, Recommendation, Wishes
    from wizard.app.session import Session


def what_if_facts(args: argparse.Namespace) -> MachineFacts:
    """MachineFacts typed on the command line."""
    from wizard.app.recommend import facts_for

    return facts_for(args.os, args.arch, args.python, args.driver, args.cuda, args.gpu_cc, args.wsl)


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


def card_for(args: argparse.Namespace, lang: str) -> tuple[Recommendation, str | None] | ExitStatus:
    """``--gpu NAME``: the recommendation for a card from the catalogue (the app layer's); an
    unknown or ambiguous name: a "did you mean" line and BAD_INPUT."""
    from wizard.app.recommend import recommend_card

    found = recommend_card(args.gpu, os=args.os, arch=args.arch, python=args.python, driver=args.driver,
                           cuda=args.cuda, wsl=args.wsl, wishes=_wishes(args))
    names = ", ".join(found.names or [])
    if found.problem == "ambiguous":
        return error(t("recommend.cli.gpu.ambiguous", lang, name=args.gpu, matches=names))
    if found.problem == "unknown":
        return error(t("recommend.cli.gpu.unknown", lang, name=args.gpu, suggestions=names))
    if found.problem == "unknown_none":
        return error(t("recommend.cli.gpu.unknown_none", lang, name=args.gpu, known=names))
    if found.problem == "not_nvidia":
        return error(t("recommend.cli.gpu.not_nvidia", lang, gpu=found.card))
    if found.recommendation is None:  # every problem above has its line; a card always has an answer
        return error(t("recommend.cli.gpu.unknown_none", lang, name=args.gpu, known=names))
    note = t("recommend.plan.assumed_driver", lang, driver=found.assumed_driver) if found.assumed_driver else None
    return found.recommendation, note


def _wishes(args: argparse.Namespace) -> Wishes:
    from wizard.app.recommend import Wishes

    return Wishes(torch=args.torch, newest=args.newest, cpu_only=args.cpu_only, variant=args.variant,
                  index_url=args.index_url)


def recommend_for(args: argparse.Namespace, lang: str,
                  course_session: Session | None = None) -> tuple[Recommendation, str | None] | ExitStatus:
    """(recommendation, a note on the chosen Python or None), or an exit status after an error line.
    ``course_session``: a Session holding ``--course``'s profile, whose pin is the torch wish."""
    from wizard.app import recommend as app_recommend

    wishes = _wishes(args)
    if args.from_doctor:
        try:
            text = read_input(args.from_doctor, lang)
            return app_recommend.recommend_from_doctor(text, wishes, args.python, course_session, args.os), None
        except OSError as exc:
            return error(t("recommend.cli.bad_from_doctor", lang, path=args.from_doctor, error=exc.strerror or exc))
        except app_recommend.DoctorFileError as exc:
            return error(t("recommend.cli.bad_from_doctor", lang, path=args.from_doctor, error=exc.text(lang)))
    if args.os or args.driver or args.gpu_cc:
        return app_recommend.recommend_facts(what_if_facts(args), wishes, course_session), None
    from wizard.app import detect as app_detect
    from wizard.app.session import Session
    from wizard.cli.environment import current_host

    session = Session(host=current_host(), lang=lang, course=course_session.course if course_session else None)
    app_detect.detect_machine(session, conda=False)
    choice = app_recommend.recommend_for(session, wishes, args.python)
    note = (t("recommend.cli.python_chosen", lang, version=choice.version, path=choice.interpreter.path)
            if choice.interpreter else t("recommend.cli.python_install", lang, version=choice.version))
    unfit = unfit_pythons_text(session, lang)
    return choice.recommendation, note + ("\n  " + unfit.replace("\n", "\n  ") if unfit else "")


def unfit_pythons_text(session: Session, lang: str) -> str:
    """The detected Pythons the build cannot use, with the reason, as the window lists them
    (``recommend`` and ``install`` both print it); "" when every one fits."""
    from wizard.app.environments import unfit_python_lines

    lines = unfit_python_lines(session, lang)
    return "\n".join([t("recommend.cli.python_unfit", lang)] + ["  " + line for line in lines]) if lines else ""


def print_recommendation(args: argparse.Namespace, rec: Recommendation, note: str | None, lang: str,
                         course_notes: list[str] | None = None) -> int:
    from wizard.app.recommend import check_index, format_recommendation

    index_messages: list[str] = []
    if args.check_index and rec.best is not None:
        index_messages = check_index(rec.best, rec.facts).messages(lang)
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


__all__ = ["run", "recommend_for", "print_recommendation", "what_if_facts", "unfit_pythons_text"]
