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
