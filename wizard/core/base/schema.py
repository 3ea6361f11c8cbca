"""The ``"schema"`` check every JSON document the wizard reads back goes through.

Every JSON the wizard writes (doctor, report, history snapshot, install plan, …) starts with
``"schema": "gpu-setup-wizard/<kind>@<major>.<minor>"``. A reader accepts any minor version of the
major it knows (unknown keys are ignored, missing ones take defaults) and rejects another kind of
file or another major version (a newer wizard wrote it) with a message saying which. One check
for all of them, so the history, the report import, ``doctor --json`` import and the Colab/cloud
import cannot drift apart in what they accept or in what they tell the student.
"""

from __future__ import annotations

from typing import Any, Mapping, cast

from wizard.core.base.i18n import MessageError, msg


class SchemaError(MessageError, ValueError):
    """A document of another kind, of an unsupported major version, or not JSON at all.

    Whoever shows it picks the language (``error.text(lang)``); ``str(error)`` is English.
    """


def split_schema(value: str) -> tuple[str, str]:
    """``"gpu-setup-wizard/report@1.2"`` → ``("gpu-setup-wizard/report", "1.2")``."""
    name, _, version = value.partition("@")
    return name, version


def check_schema(doc: Any, expected_name: str, supported_major: str | int,
                 error: type[SchemaError] = SchemaError) -> str:
    """The version of ``doc`` when it is a ``expected_name`` document of major ``supported_major``.

    ``supported_major`` may be given as the full supported version ("1.0"): only its major counts.
    Raises ``error`` (a :class:`SchemaError` subclass, so a caller can tell report files from
    others) when it is not a mapping with a ``schema`` string, names another kind, or has
    another major version.
    """
    supported = str(supported_major)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("schema"), str):
        raise error(msg("common.schema.not_ours", kind=expected_name))
    name, version = split_schema(doc["schema"])
    if name != expected_name:
        raise error(msg("common.schema.wrong_kind", kind=expected_name, found=name))
    if version.split(".")[0] != supported.split(".")[0]:
        raise error(msg("common.schema.wrong_major", kind=expected_name, found=version, supported=supported))
    return version


def load_schema_json(text: str | bytes, expected_name: str, supported_major: str | int,
                     error: type[SchemaError] = SchemaError) -> dict[str, Any]:
    """Parse ``text`` as JSON and :func:`check_schema` it; the document is returned."""
    from wizard.core.base.user_input import UserInputError, loads_user_json

    try:
        doc = loads_user_json(text)
    except UserInputError as exc:
        raise error(exc.message) from exc
    except ValueError as exc:
        raise error(msg("common.schema.not_json", error=str(exc))) from exc
    check_schema(doc, expected_name, supported_major, error)
    return cast("dict[str, Any]", doc)  # check_schema raised unless it is an object


__all__ = ["SchemaError", "check_schema", "load_schema_json", "split_schema"]
