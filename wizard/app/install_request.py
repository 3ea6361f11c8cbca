"""What is to be installed where: the value the Environment page and ``install`` hand to the run.

Its own module so that the session (:mod:`wizard.app.session`), which keeps the chosen request,
does not import the install use cases (:mod:`wizard.app.install`), which take the session: the
application layer's modules stay free of import circles. The faces name it as
``wizard.app.install.InstallRequest``.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.core.install.environments import EnvTarget
from wizard.core.install.job import InstallOptions
from wizard.core.install.plan import InstallPlan


@dataclass
class InstallRequest:
    """What is to be installed where: the target, the job's options, the previewed plan (None
    when it is known only after the environment exists) and a one-line description."""

    target: EnvTarget
    options: InstallOptions
    plan: InstallPlan | None = None
    description: str = ""
