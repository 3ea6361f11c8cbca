"""``python -m wizard.core.machine.nvml_child``: one NVML query, printed as JSON, in a process of its own.

Why a child: NVML is a C library loaded into whatever process calls ``nvmlInit``. A broken driver
install (a half-updated libnvidia-ml, a library from another driver branch, a stub from the CUDA
toolkit on LD_LIBRARY_PATH) can segfault inside it, and in-process that ends the wizard: rc 139,
no output, no window. Run here first, a crash kills only this child, and the parent
(:mod:`wizard.core.machine.nvml_guard`) turns the signal into a finding and carries on with nvidia-smi.

Small on purpose: it imports only the NVML query and its models, so the check costs about a
Python start-up plus the bindings, in parallel with the rest of detection.
"""

from __future__ import annotations

import dataclasses
import json
import sys


def main() -> int:
    """Query NVML like the parent would in-process; the SourceResult as one JSON line on stdout."""
    from wizard.core.base.host import RealHost
    from wizard.core.machine.nvml_guard import query_in_process

    result = query_in_process(RealHost())
    sys.stdout.write(json.dumps(dataclasses.asdict(result)) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
