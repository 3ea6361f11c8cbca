"""Recommend use cases: which Python and which PyTorch build, chosen once for both faces.

The Recommend page and ``gpu-setup-wizard recommend``/``install``/``report`` call these; a
build the student picks against the rules (an override, or the build a diagnosis asks for)
is checked here too, so its warnings are the same everywhere.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from wizard.app.session import Session
from wizard.core.base.i18n import MessageError
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.machine.models import Detection, PythonInterpreter
    from wizard.core.recommend.choose_python import FALLBACK_PYTHON as FALLBACK_PYTHON
    from wizard.core.recommend.choose_python import PythonChoice as PythonChoice
    from wizard.core.recommend.inputs import MachineFacts as MachineFacts
    from wizard.core.recommend.inputs import Wishes as Wishes
    from wizard.core.recommend.recommender import Candidate as Candidate
    from wizard.core.recommend.recommender import Recommendation as Recommendation
    from wizard.core.recommend.text import format_recommendation as format_recommendation
    from wizard.core.recommend.update import UpdateResult  # value types and formatters the faces use, re-exported

__getattr__ = lazy_exports(__name__, {
    "FALLBACK_PYTHON": "wizard.core.recommend.choose_python", "MachineFacts": "wizard.core.recommend.inputs",
    "Wishes": "wizard.core.recommend.inputs", "format_recommendation": "wizard.core.recommend.text",
    "PythonChoice": "wizard.core.recommend.choose_python", "Candidate": "wizard.core.recommend.recommender",
    "Recommendation": "wizard.core.recommend.recommender",
})


def unknown_machine() -> Detection:
    """The Detection of a machine detection could not read: this OS, no GPU (a CPU build and
    advice follow from it)."""
    from wizard.core.machine.models import Detection, NvidiaInfo, SystemInfo

    os_name = "windows" if sys.platform.startswith("win") else "macos" if sys.platform == "darwin" else "linux"
    return Detection(SystemInfo(os=os_name), NvidiaInfo())


def usable_pythons(detection: Detection | None) -> list[PythonInterpreter]:
    """The detected interpreters a new venv can be made from (the same test the recommendation
    uses to choose one), each path once, in detection order."""
    from wizard.core.recommend.choose_python import _usable

    seen: set[str] = set()
    out = []
    for p in (detection.pythons if detection else []):
        if _usable(p) and p.path not in seen:
            seen.add(p.path)
            out.append(p)
    return out


def compute(session: Session, wishes: Wishes | None = None, explicit_version: str | None = None) -> PythonChoice:
    """Choose the Python and the build for the session's machine. Reads the session's detection
    and course profile, writes nothing: safe on a worker thread. A course profile's torch pin is
    the wish when the student named no torch."""
    from wizard.core.recommend.choose_python import choose_python

    detection = session.detection or unknown_machine()
    if session.course is not None:  # the course's torch pin, unless the student named a torch
        from wizard.app.course import course_python, course_wishes

        explicit_version = explicit_version or course_python(session)
        first = choose_python(detection, wishes, explicit_version).recommendation
        wishes = course_wishes(session, wishes, first.facts, first.best)
        from wizard.core.recommend.tensorflow import wants_tensorflow

        if wants_tensorflow(session.course.packages):  # say how TensorFlow gets this machine's GPU
            from dataclasses import replace

            from wizard.core.recommend.inputs import Wishes
            wishes = replace(wishes or Wishes(), tensorflow=True)
    return choose_python(detection, wishes, explicit_version)


def record(session: Session, choice: PythonChoice) -> PythonChoice:
    """The choice is this run's recommendation (the GUI thread, or the command line). A build
    requested by a diagnosis action (``session.requested_build``) is taken once, with the rules'
    objections recorded in ``override_failures``."""
    session.recommendation = choice
    session.candidate = choice.recommendation.best
    session.override_failures = []
    requested, session.requested_build = session.requested_build, None
    if requested and requested.get("torch") and requested.get("variant"):
        choose_build(session, requested["torch"], requested["variant"])
    return choice


def recommend_for(session: Session, wishes: Wishes | None = None, explicit_version: str | None = None) -> PythonChoice:
    """Compute and record: the Python and the build for the session's machine."""
    return record(session, compute(session, wishes, explicit_version))


def choose_build(session: Session, torch: str, variant: str,
                 candidate: Candidate | None = None) -> Candidate | None:
    """The student's pick of ``torch`` + ``variant`` (``candidate`` when the recommender
    offered it): recorded with what the rules say against it. Returns the candidate or None."""
    from wizard.core.recommend.recommender import check_candidate

    if session.recommendation is None:
        return None
    facts = session.recommendation.recommendation.facts
    chosen = candidate if candidate is not None else candidate_for(facts, torch, variant)
    if chosen is None:
        return None
    session.candidate = chosen
    session.override_failures = list(check_candidate(facts, torch, variant, lang=session.lang))
    return chosen


def build_problems(session: Session, torch: str, variant: str) -> list[str]:
    """Why ``torch`` + ``variant`` would fail on the session's machine, by the recommender's own
    rules, in the session's language ([] = it passes); shown before the student picks it."""
    from wizard.core.recommend.recommender import check_candidate

    if session.recommendation is None:
        return []
    return list(check_candidate(session.recommendation.recommendation.facts, torch, variant, lang=session.lang))


def check_data_update(timeout: float = 5.0) -> UpdateResult:
    """Look for a newer signed compatibility table (at most once a day; off by the setting,
    ``GSW_COMPAT_UPDATE=0`` or ``GSW_OFFLINE=1``). Blocking: the GUI calls it on a worker thread
    after the first paint, the command line with a short timeout. Returns the UpdateResult."""
    from wizard.core.recommend.update import UpdateConfig, check_for_update

    return check_for_update(UpdateConfig.from_env(timeout=timeout))


def candidate_for(facts: MachineFacts, torch: str, variant: str) -> Candidate | None:
    """A Candidate for ``torch`` + ``variant`` on ``facts``: the recommender's own when it lists
    it, else one built from the compatibility data (an option the rules rejected)."""
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import Candidate, recommend

    rec = recommend(facts, Wishes(torch=torch, variant=variant, newest=True))
    for c in rec.candidates:
        if c.torch == torch and c.variant == variant:
            return c
    kb = compat.load()
    release = kb.release(torch)
    v = kb.variant(variant)
    if release is None or v is None:
        return None
    return Candidate(torch=torch, torchvision=release.torchvision.get(torch),
                     torchaudio=release.torchaudio.get(torch), variant=variant, kind=v.kind,
                     index_url=kb.index_url(variant, rec.facts.platform), python_requires="",
                     python=rec.facts.python, verified=False)


# ---- what-if recommendations: typed facts, another machine's doctor JSON, a card by name ------
def facts_for(os: str | None = None, arch: str | None = None, python: str | None = None,
              driver: str | None = None, cuda: str | None = None, gpu_ccs: Sequence[str] = (),
              wsl: bool = False) -> MachineFacts:
    """The facts of a machine described by hand (the teaching and support form): the highest
    CUDA the driver supports comes from the compatibility table when only the driver is given."""
    from wizard.core.recommend.inputs import MachineFacts

    if driver and not cuda:
        from wizard.core.recommend import compat

        cuda = compat.load().cuda_for_driver(driver, "windows" if os == "windows" or wsl else "linux")
    return MachineFacts(os=os or "linux", arch=arch or "x86_64", python=python or "3.12",
                        driver_version=driver, cuda_driver=cuda, gpu_ccs=list(gpu_ccs), is_wsl=wsl,
                        gpu_names=["" for _ in gpu_ccs])


def recommend_facts(facts: MachineFacts, wishes: Wishes | None = None, course_session: Session | None = None) -> Recommendation:
    """The recommendation for typed facts; a course profile's pin is the torch wish."""
    from wizard.core.recommend.recommender import recommend

    if course_session is not None and course_session.course is not None:
        from wizard.app.course import course_wishes

        wishes = course_wishes(course_session, wishes, facts, recommend(facts, wishes).best)
    return recommend(facts, wishes)


class DoctorFileError(ValueError):
    """Another machine's ``doctor --json`` that cannot be read: ``text(lang)`` says why."""

    def __init__(self, error: Any) -> None:
        super().__init__(str(error))
        self.error = error

    def text(self, lang: str) -> str:
        return self.error.text(lang) if hasattr(self.error, "text") else str(self.error)


class DoctorNoOs(MessageError, ValueError):
    """A doctor document that names no operating system (made from an nvidia-smi file alone)."""


def recommend_from_doctor(text: str, wishes: Wishes | None = None, python: str | None = None,
                          course_session: Session | None = None, os_name: str | None = None) -> Recommendation:
    """The recommendation for the machine another ``doctor --json`` describes (its Pythons
    included). Raises :class:`DoctorFileError` for a document that is not one.

    A doctor made from a saved nvidia-smi file alone (``doctor --nvidia-smi-file``) names no
    operating system: ``os_name`` (``--os``) says it, a Windows driver model (WDDM/TCC/MCDM) in
    the file shows it, and otherwise the error says to add ``--os``."""
    from wizard.core.base.schema import SchemaError
    from wizard.core.base.typed import DocumentTypeError
    from wizard.core.machine.doctor import load_doctor_json
    from wizard.core.machine.doctor_import import detection_from_doctor_json
    from wizard.core.recommend.choose_python import choose_python

    try:
        detection = detection_from_doctor_json(load_doctor_json(text))
    except (SchemaError, DocumentTypeError) as exc:
        raise DoctorFileError(exc) from exc
    if os_name or detection.system.os not in ("windows", "linux", "macos"):
        windows = any(g.driver_model in ("WDDM", "TCC", "MCDM") for g in detection.nvidia.gpus)
        # only a Jetson's nvidia-smi names its GPU "Orin (nvgpu)": a board, whose driver comes with
        # its OS image, never a desktop's x86 build and driver advice
        board = any((g.name or "").lower().endswith("(nvgpu)") for g in detection.nvidia.gpus)
        if board and not os_name and not detection.system.arch:
            detection.system.arch = "aarch64"
            if detection.system.jetson_model is None:
                detection.system.jetson_model = ""
        chosen = os_name or ("windows" if windows else "linux" if board else None)
        if chosen is None:
            from wizard.core.base.i18n import msg

            raise DoctorFileError(DoctorNoOs(msg("recommend.doctor.no_os")))
        detection.system.os = chosen
    if course_session is not None and course_session.course is not None:
        course_session.detection = detection  # the pin applies as for this machine
        return recommend_for(course_session, wishes, python).recommendation
    return choose_python(detection, wishes, python).recommendation


@dataclass
class CardAnswer:
    """``recommend --gpu NAME``: the recommendation for a card of the catalogue, or why there is
    none (``problem``: "ambiguous", "unknown", "unknown_none" or "not_nvidia", with ``names``)."""

    recommendation: Recommendation | None = None
    assumed_driver: str | None = None  # the driver assumed when none was given
    problem: str | None = None
    names: list[str] | None = None
    card: str | None = None


def recommend_card(name: str, *, os: str | None = None, arch: str | None = None, python: str | None = None,
                   driver: str | None = None, cuda: str | None = None, wsl: bool = False,
                   wishes: Wishes | None = None) -> CardAnswer:
    """The recommendation for a card from the catalogue, with what it needs (the driver that first
    knows it, each build's driver bars); a current driver is assumed when none is given."""
    from wizard.core.recommend import advice, compat
    from wizard.core.recommend.compat_model import parse_cc
    from wizard.core.recommend.recommender import recommend

    found = advice.find_card(name)
    if found.ambiguous:
        return CardAnswer(problem="ambiguous", names=list(found.ambiguous))
    if found.entry is None:
        if found.suggestions:
            return CardAnswer(problem="unknown", names=list(found.suggestions))
        return CardAnswer(problem="unknown_none", names=known_cards())
    card = found.entry
    if not card.get("compute_capability"):
        return CardAnswer(problem="not_nvidia", card=card["name"])
    kb = compat.load()
    cc = card["compute_capability"]
    assumed = None
    if not driver and not cuda:
        assumed = current_driver("windows" if os == "windows" or wsl else "linux")
    facts = facts_for(os, arch, python, driver or assumed, cuda, [cc], wsl)
    facts.gpu_names = [card["name"]]
    rec = recommend(facts, wishes)
    rec.advice.insert(0, advice.card_plan(card["name"], parse_cc(cc), card.get("architecture", "?"), facts, kb))
    return CardAnswer(rec, assumed, card=card["name"])


def current_driver(driver_os: str) -> str:
    """The toolkit driver of the newest CUDA build the table knows (what a new card ships with today)."""
    from wizard.core.recommend import compat
    from wizard.core.recommend.compat_model import version

    kb = compat.load()
    cuda = [v for v in kb.variants.values() if v.kind == "cuda"]
    newest = max(cuda, key=lambda v: v.sort_key)
    return max((newest.toolkit_driver[driver_os], newest.minor_compat_driver[driver_os]), key=version)


def known_cards() -> list[str]:
    """Every NVIDIA card of the catalogue, by name."""
    from wizard.core.base.resources import load_json

    return [g["name"] for g in load_json("gpus.json")["gpus"] if g.get("compute_capability")]


def check_index(candidate: Any, facts: Any, proxy: str | None = None) -> Any:
    """Ask the build's index whether it has wheels for this Python/OS/arch (blocking: the window
    calls it on a worker). Returns the index check, whose ``messages(lang)`` say what it found.

    ``proxy``: the one typed in the window; None: the one typed there last time (remembered
    beside the mirror, :mod:`wizard.app.reuse`), so the check goes the way the install will;
    "" or nothing remembered: the environment's proxy variables."""
    from wizard.core.recommend.wheel_index import WheelIndex, target_tags

    if proxy is None:
        from wizard.app.reuse import load_remembered

        proxy = load_remembered().proxy
    return WheelIndex(proxy=proxy).check_candidate(candidate, target_tags(facts.python, facts.os, facts.arch))
