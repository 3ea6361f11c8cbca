"""Step 9, "the report to hand in": the checklist model, Markdown/HTML rendering, JSON in and out,
and the Colab/cloud rows imported from other machines.

``inputs`` (what a report is built from) → ``build`` (with the sections of ``lesson`` and
``details``) → ``document`` (the dataclasses and their dict form) → ``render`` (Markdown, HTML) and
``as_json``; ``remote`` reads other machines' outputs; ``model`` gathers the names callers use.
"""
