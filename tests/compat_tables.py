"""Compatibility tables for tests: the bundled one with a newer release added (what a signed
update would bring), shared by the update tests and the Recommendation page's data-source test."""

from __future__ import annotations

import copy
import json

from wizard.core.base.resources import load_json


def newer_table(reviewed_on: str = "2099-01-01") -> bytes:
    """The bundled table plus a torch 2.99 (a copy of 2.15 under a new number), dated ``reviewed_on``."""
    data = copy.deepcopy(load_json("compat.json"))
    data["reviewed_on"] = reviewed_on
    rel = copy.deepcopy(next(r for r in data["releases"] if r["torch"] == "2.15"))
    rel.update(torch="2.99", patches=["2.99.0"], torchvision={"2.99.0": "0.99.0"}, torchaudio={"2.99.0": None},
               confidence="confirmed")
    rel.pop("unverified", None)
    data["releases"].append(rel)
    return (json.dumps(data, indent=1) + "\n").encode("utf-8")


def pypi_with_patch(patch: str, torchvision: str) -> dict:
    """What the index reading saves about PyPI (live_index.pypi_project of each project) when torch
    ``patch`` (2.15.0's files under a new number) and a ``torchvision`` pinning it have appeared:
    the recorded torch document and the torchvision/torchaudio/TensorFlow ones in tests/data."""
    from pathlib import Path

    from wizard.core.recommend import live_index

    data = Path(__file__).resolve().parent / "data"
    docs = {"torch": json.loads((data / "compat_refresh" / "pypi" / "torch.json").read_text(encoding="utf-8"))}
    for name in ("torchvision", "torchaudio", "tensorflow"):
        docs[name] = json.loads((data / "live_index" / "pypi" / f"{name}.json").read_text(encoding="utf-8"))
    torch = docs["torch"]
    torch["releases"][patch] = [dict(f, filename=f["filename"].replace("2.15.0", patch))
                                for f in torch["releases"]["2.15.0"]]
    torch["info"]["version"] = patch
    docs["torchvision"]["releases"][torchvision] = [{"filename": f"torchvision-{torchvision}-py3-none-any.whl",
                                                      "upload_time": "2026-12-05T16:30:00", "yanked": False}]
    docs["torchvision"]["info"].update(version=torchvision, requires_dist=[f"torch=={patch}"])
    return {name: live_index.pypi_project(json.dumps(doc).encode()) for name, doc in docs.items()}
