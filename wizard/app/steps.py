"""The install's one step loop and one child-process runner, as both faces drive them.

The command line runs :func:`run_steps` on its own thread; the window's Qt adapters
(:mod:`wizard.ui.process_runner`) run the same functions on a worker and relay their callbacks
as signals. Re-exported here so that the faces reach the engine through the application layer
only (the import contract ``faces-only-through-app`` in pyproject.toml).
"""

from __future__ import annotations

from wizard.core.install.job import Step as Step
from wizard.core.install.job import StepError as StepError
from wizard.core.install.runner import InstallJob as InstallJob
from wizard.core.install.runner import StepHooks as StepHooks
from wizard.core.install.runner import run_step_process as run_step_process
from wizard.core.install.runner import run_steps as run_steps
