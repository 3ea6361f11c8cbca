"""Step 9, "the report to hand in": the checklist model, Markdown/HTML rendering, JSON in and out,
and the Colab/cloud rows imported from other machines.
"""
