"""``gpu-setup-wizard``: the wizard window, or the same engine headless.

Without a command it opens the Qt wizard (imported only then, so the headless commands work on
a server without a display and never load Qt). One module per command, each thin: parse (in
:mod:`wizard.cli.parser`, the one argparse definition), call the core or the application
layer, print. :mod:`wizard.cli.exit_status` says what each exit status means;
:mod:`wizard.cli.common` holds what every command shares (streams, errors, the language).

- ``doctor``: detect this machine (or read a saved nvidia-smi output) and explain it.
- ``recommend``: the PyTorch build this machine can run, and why.
- ``verify`` / ``bench``: prove an environment works; CPU versus GPU speed.
- ``vram``: what fits in GPU memory, and which lessons need Colab or the cloud.
- ``install``: create the environment and install the recommended build (resumable, cancellable).
- ``report``: the lesson's checklist filled in (Markdown, HTML, PDF, JSON), with Colab/cloud rows.
- ``history``: earlier runs, and what changed between them.
"""

from wizard.cli.entry import main

__all__ = ["main"]
