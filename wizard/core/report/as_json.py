"""The report as JSON text (schema ``gpu-setup-wizard/report@1.0``), and back.

Why it loads back: a student runs ``gpu-setup-wizard report --json`` in Colab or on a cloud GPU
over SSH, and the wizard on their PC imports that file for the Colab/cloud rows
(:mod:`wizard.core.report.remote`); a teaching assistant can re-render a handed-in JSON as Markdown or
HTML. So the document holds the whole :class:`~wizard.core.report.document.Report`: every section's
text in the report's language, and each machine's facts as plain values (``machines[0]`` is the
machine that made the report).

Readers accept any 1.x document (unknown keys are ignored, missing ones take their defaults)
and reject another major version, or another kind of file, with a message saying so
(:func:`wizard.core.base.schema.check_schema`). The dict form itself lives with the classes, in
:mod:`wizard.core.report.document`.
"""

from __future__ import annotations

import json

from wizard.core.base.schema import load_schema_json
from wizard.core.report.document import (
    SCHEMA,
    SCHEMA_VERSION,
    Report,
    ReportSchemaError,
    report_from_dict,
    report_to_dict,
)


def dumps(report: Report) -> str:
    return json.dumps(report_to_dict(report), ensure_ascii=False, indent=2) + "\n"


def loads(text: str) -> Report:
    """Parse a report JSON text (another machine's ``report --json``)."""
    return report_from_dict(load_schema_json(text, SCHEMA, SCHEMA_VERSION, ReportSchemaError))


__all__ = ["dumps", "loads"]
