"""Self-check of a frozen bundle: the parts the wizard's ``--smoke-test`` does not reach.

``--smoke-test`` paints the first page, but pyqtgraph (and numpy) load only when the GPU page
shows a live plot on a machine with a GPU, so a bundle missing them, or missing the Qt module
pyqtgraph pulls in with importlib (QtOpenGL), would pass the smoke test and crash for students
with a GPU. The spec links this script as an extra executable against the SAME module archive
and files as the app (its own imports are not analysed), so an import that works here works in
the app. ``build.py`` runs it and deletes it before packaging; it is never shipped.

Checks, printed as one JSON object (exit 0 only when all pass):
- resources and the probe scripts resolve inside the bundle (``wizard.core.base.resources``);
- the live plot (pyqtgraph + numpy + QtOpenGL) builds, takes samples and paints its curve;
- the shipped Hangul font registers with Qt, and Qt's Korean catalogue (qtbase_ko.qm) loads, so
  the bundle's dialogs speak Korean on a machine without CJK fonts;
- with ``--python EXE``: that interpreter, as a target environment would, reads and compiles
  every probe script straight from the bundle folder;
- the bundled uv, when present, runs.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CURVE_RGB = (0x1F, 0x77, 0xB4)  # PALETTE[0] of wizard.ui.widgets.live_plot: GPU 0's pen


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def check_resources(bundle: Path, checks: dict) -> None:
    from wizard.core.base.resources import probe_path, resources_dir

    checks["resources_in_bundle"] = resources_dir() == bundle / "wizard" / "resources"
    probes = sorted((bundle / "wizard" / "probe").glob("*.py"))
    checks["probe_scripts_in_bundle"] = bool(probes) and all(probe_path(p.name) == p for p in probes)


def check_live_plot(checks: dict, versions: dict) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import shiboken6
    from PySide6 import QtCore
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from wizard.core.machine.nvml_sampler import GpuSample
    from wizard.ui.widgets.live_plot import LiveGpuPlot

    plot = LiveGpuPlot()
    plot.resize(640, 480)
    plot.show()
    t0 = time.monotonic()
    for i, util in enumerate((5.0, 60.0, 95.0, 40.0)):
        plot.add_samples([GpuSample(index=0, t=t0 + i, utilization_gpu=util, memory_used_mib=2000.0 + 500 * i,
                                    memory_total_mib=8192.0, temperature_c=45.0 + i)])
    app.processEvents()
    xs, ys = plot.curves[("utilization", 0)].getData()
    checks["live_plot_data"] = list(ys) == [5.0, 60.0, 95.0, 40.0] and len(xs) == 4
    image = plot.grab().toImage()
    curve_pixels = 0
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if abs(c.red() - CURVE_RGB[0]) + abs(c.green() - CURVE_RGB[1]) + abs(c.blue() - CURVE_RGB[2]) < 24:
                curve_pixels += 1
    checks["live_plot_painted"] = curve_pixels > 50
    versions["curve_pixels"] = curve_pixels
    import numpy
    import pyqtgraph

    versions.update(qt=QtCore.qVersion(), pyqtgraph=pyqtgraph.__version__, numpy=numpy.__version__,
                    platform=app.platformName())
    checks["qtopengl_loaded"] = "PySide6.QtOpenGL" in sys.modules
    # A top-level widget still alive at interpreter exit crashes the frozen app's teardown
    # (SIGSEGV after the output was printed, about half the runs); delete it while Qt runs.
    plot.close()
    shiboken6.delete(plot)


def check_target_python(bundle: Path, python: str, checks: dict) -> None:
    code = ("import sys\n"
            "for p in sys.argv[1:]:\n"
            "    with open(p, 'rb') as f: compile(f.read(), p, 'exec')\n"
            "print(len(sys.argv) - 1)")
    probes = [str(p) for p in sorted((bundle / "wizard" / "probe").glob("*.py"))]
    out = _run([python, "-I", "-c", code, *probes])
    checks["target_python_reads_probes"] = out.returncode == 0 and out.stdout.strip() == str(len(probes))


def check_uv(bundle: Path, checks: dict, versions: dict) -> None:
    uv = bundle / "bin" / ("uv.exe" if os.name == "nt" else "uv")
    if not uv.exists():
        versions["uv"] = None
        return
    out = _run([str(uv), "--version"])
    checks["bundled_uv_runs"] = out.returncode == 0 and out.stdout.startswith("uv ")
    versions["uv"] = out.stdout.strip()


def check_fonts_and_translations(checks: dict) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    QApplication.instance() or QApplication(sys.argv[:1])
    from wizard.report_pdf import SHIPPED_FAMILIES, SHIPPED_MONO_FAMILY, register_shipped_fonts
    from wizard.ui.translations import set_qt_language

    checks["shipped_fonts_register"] = tuple(register_shipped_fonts()) == (*SHIPPED_FAMILIES, SHIPPED_MONO_FAMILY)
    checks["qtbase_ko_loads"] = set_qt_language("ko") and \
        QCoreApplication.translate("QFileDialog", "Look in:") != "Look in:"
    set_qt_language("en")


def main(argv: list[str] | None = None) -> int:
    faulthandler.enable()  # a crash in Qt code still says where
    parser = argparse.ArgumentParser(prog="bundle-self-check")
    parser.add_argument("--python", help="an interpreter that must be able to read the bundled probe scripts")
    args = parser.parse_args(argv)
    bundle = Path(getattr(sys, "_MEIPASS", ""))
    checks: dict[str, bool] = {"frozen": bool(getattr(sys, "frozen", False)) and bundle.is_dir()}
    versions: dict[str, object] = {}
    errors: list[str] = []
    for step in (lambda: check_resources(bundle, checks),
                 lambda: check_live_plot(checks, versions),
                 lambda: check_fonts_and_translations(checks),
                 lambda: args.python and check_target_python(bundle, args.python, checks),
                 lambda: check_uv(bundle, checks, versions)):
        try:
            step()
        except Exception as exc:  # report every failing step, not only the first one
            errors.append(f"{type(exc).__name__}: {exc}")
    ok = not errors and all(checks.values())
    print(json.dumps({"ok": ok, "checks": checks, "versions": versions, "errors": errors}, ensure_ascii=False))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
