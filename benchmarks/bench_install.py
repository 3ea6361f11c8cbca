"""The wizard's install against plain ``pip install``: same wheels, same loopback index, one run.

    .venv/bin/python benchmarks/bench_install.py             # a real torch wheel when one can be had
    .venv/bin/python benchmarks/bench_install.py --synthetic # generated wheels only

Each scenario starts from nothing (a fresh venv) and ends with the packages installed; the
times include making the venv. The loopback index (tests/integration/index_server.py) counts
the file bytes it serves, so "fetched" is measured at the server, not estimated:

* plain pip        -- ``python -m venv`` + ``pip install --index-url <loopback> ...`` with a new
                      pip cache folder (a student's first install). ``--trusted-host 127.0.0.1``
                      lets pip cache the plain-HTTP loopback answers as it caches HTTPS ones
                      (pip never caches untrusted ``http://``), and the server sends PyPI's
                      ``Cache-Control``, so pip's own cache is given its full chance;
* plain pip again  -- a second fresh venv, the same pip cache (what pip re-fetches);
* wizard (pip)     -- the wizard's job: resolve, download (3 at once, hash-checked) into a new
                      cache, offline install with pip;
* wizard again     -- a second fresh venv, the same wizard cache (target: 0 bytes);
* wizard (uv)      -- uv makes the venv and installs from a new cache.

The wizard runs on a worker thread while a heartbeat thread asks to run every 10 ms, as the
GUI's event loop does; its worst lateness is how long the job's Python work (downloads,
hashing, parsing) kept the interpreter from it -- a stand-in for the GUI stall, without Qt.

The payload: ``torch==2.13.0`` and its dependencies as ``pip download`` finds them on this
machine (pip's configuration decides where from), else generated wheels of the same order of
size. Numbers go to stdout; nothing is written into the project.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STALLS: list[float] = []  # worst heartbeat lateness per wizard run
sys.path.insert(0, str(REPO))

from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.core.install import environments as envs  # noqa: E402
from wizard.core.install.job import InstallOptions  # noqa: E402
from wizard.core.install.plan import format_bytes  # noqa: E402
from wizard.core.install.runner import InstallJob, run_steps  # noqa: E402


def torch_payload(folder: Path) -> list[str] | None:
    res = subprocess.run([sys.executable, "-m", "pip", "download", "torch==2.13.0", "--only-binary", ":all:",
                          "-d", str(folder), "-q"], capture_output=True, text=True, timeout=1800)
    if res.returncode != 0 or not list(folder.glob("torch-*.whl")):
        print(f"(no torch wheel: {(res.stderr or res.stdout).strip()[-200:]})", file=sys.stderr)
        return None
    return ["torch==2.13.0"]


def synthetic_payload(folder: Path) -> list[str]:
    deps = [f"gsw-dep-{i}" for i in range(6)]
    for i, name in enumerate(deps):
        make_wheel(folder, name, "1.0", payload_bytes=8_000_000, seed=i)
    make_wheel(folder, "gsw-app", "1.0", requires=deps, many_files=3000)
    return ["gsw-app==1.0"]


def plain_pip(py_base: str, env_dir: Path, index_url: str, reqs: list[str], pip_cache: Path) -> float:
    start = time.perf_counter()
    subprocess.run([py_base, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    subprocess.run([str(py), "-m", "pip", "--isolated", "install", "-q", "--disable-pip-version-check",
                    "--cache-dir", str(pip_cache), "--index-url", index_url, "--trusted-host", "127.0.0.1", *reqs],
                   check=True, env=env)
    return time.perf_counter() - start


class Heartbeat:
    """A thread that wants to run every 10 ms, as a GUI event loop's QTimer would; the worst
    lateness is how long the install's Python work (downloads, hashing) held the interpreter."""

    def __init__(self, period_s: float = 0.01) -> None:
        self.period_s = period_s
        self.worst_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.wait(self.period_s):
            now = time.perf_counter()
            self.worst_s = max(self.worst_s, now - last - self.period_s)
            last = now

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def wizard(target: envs.EnvTarget, index_url: str, reqs: list[str], cache: Path, state: Path,
           installer: str = "pip") -> tuple[float, dict]:
    opts = InstallOptions(reqs, index_url=index_url, cache_dir=str(cache), state_dir=str(state), installer=installer)
    job = InstallJob(target, opts, RealHost())
    start = time.perf_counter()
    worker = threading.Thread(target=lambda: results.append(run_steps(job)))  # the GUI's worker thread
    results: list[bool] = []
    with Heartbeat() as beat:
        worker.start()
        worker.join()
    ok = bool(results and results[0])
    elapsed = time.perf_counter() - start
    STALLS.append(beat.worst_s)
    if not ok:
        raise SystemExit(f"wizard install failed: {job.failure.message.text() if job.failure else '?'}\n"
                         + "\n".join(list(job.log_lines)[-20:]))
    return elapsed, job.summary()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--synthetic", action="store_true", help="generated wheels, not torch")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    work = Path(tempfile.mkdtemp(prefix="gsw bench 김 "))
    wheels = work / "wheels"
    wheels.mkdir()
    reqs = None if args.synthetic else torch_payload(wheels)
    payload = "torch 2.13.0 + dependencies"
    if reqs is None:
        reqs = synthetic_payload(wheels)
        payload = "generated wheels"
    rows = []
    uv = envs.find_uv()
    with LoopbackIndex() as idx:
        idx.add_wheels(sorted(wheels.glob("*.whl")))
        total = sum(f.size for f in idx.files.values())
        print(f"payload: {payload}: {len(idx.files)} files, {format_bytes(total)}; Python {sys.version.split()[0]}; "
              f"{os.cpu_count()} CPUs", flush=True)
        url = idx.simple_url

        def measure(label: str, fn) -> None:
            idx.reset_counters()
            seconds = fn()
            stall = STALLS[-1] * 1000 if label.startswith("wizard") and STALLS else None
            rows.append((label, seconds, idx.total_file_bytes_served(), stall))
            print(f"  {label:<18} {seconds:7.1f} s   fetched {format_bytes(idx.total_file_bytes_served())}"
                  + (f"   worst heartbeat delay {stall:.0f} ms" if stall is not None else ""), flush=True)

        measure("plain pip", lambda: plain_pip(sys.executable, work / "pip1", url, reqs, work / "pip-cache"))
        measure("plain pip again", lambda: plain_pip(sys.executable, work / "pip2", url, reqs, work / "pip-cache"))
        measure("wizard (pip)", lambda: wizard(envs.new_venv(str(work / "w 1"), sys.executable), url, reqs,
                                               work / "wcache", work / "state")[0])
        measure("wizard again", lambda: wizard(envs.new_venv(str(work / "w 2"), sys.executable), url, reqs,
                                               work / "wcache", work / "state")[0])
        if uv:
            measure("wizard (uv)", lambda: wizard(envs.new_uv_venv(str(work / "w 3"), sys.executable, uv), url,
                                                  reqs, work / "wcache-uv", work / "state", "uv")[0])
    print()
    print("| scenario | total time | bytes fetched | worst 10 ms heartbeat delay |")
    print("| --- | ---: | ---: | ---: |")
    for label, seconds, fetched, stall in rows:
        print(f"| {label} | {seconds:.1f} s | {format_bytes(fetched)} | "
              + (f"{stall:.0f} ms |" if stall is not None else "- |"))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
