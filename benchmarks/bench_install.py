"""The wizard's default install against plain pip and plain uv: same wheels, same loopback index.

    .venv/bin/python benchmarks/bench_install.py                 # torch 2.13.0 + torchvision 0.28.0
    .venv/bin/python benchmarks/bench_install.py --rounds 3      # median of 3 rounds
    .venv/bin/python benchmarks/bench_install.py --synthetic     # generated wheels only
    .venv/bin/python benchmarks/bench_install.py --out artifacts/bench/install.json

Every scenario starts from a fresh venv and ends with the packages installed; times include
making the venv. "cold" uses new, empty caches; "warm" a second fresh venv with the caches the
cold run filled. The loopback index (tests/integration/index_server.py) counts every body byte
it serves (wheels, pages, ``.metadata`` files), so "served" is measured at the server:

* plain pip   -- ``python -m venv`` + ``pip install --index-url <loopback>`` (own cache folder;
                 ``--trusted-host`` lets pip cache plain-HTTP answers, the server sends PyPI's
                 ``Cache-Control``);
* plain uv    -- ``uv venv`` + ``uv pip install --index-url <loopback>`` (own ``UV_CACHE_DIR``);
* plain uv + import -- the same, then ``python -c "import torch, torchvision"``: the check the
                 wizard's own last step makes (it imports what it installed), so equal work;
* wizard      -- the wizard's job as both faces run it by default: installer "auto" (uv when
                 found), a uv venv, plan from metadata (``uv pip compile``; warm: the plan
                 kept from the cold run, once the index has answered every URL uv read
                 exactly as then -- the same requests plain uv makes), the wizard's
                 downloader (hash-checked, resumable) into its cache, offline install, and its
                 check of the exact installed versions (importing is Verify's step, after it).
                 It runs on a worker thread while a heartbeat thread asks to run every 10 ms,
                 as the GUI's event loop does (worst lateness reported);
* wizard + import -- the same job told to import torch at the end, against plain uv + import.

Ratios are the wizard's median time over plain uv's (and wizard + import over plain uv + import). The JSON
(``--out``) has every round; ``benchmarks/run`` calls this with ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.core.install import environments as envs  # noqa: E402
from wizard.core.install.job import INSTALLER_AUTO, InstallOptions  # noqa: E402
from wizard.core.install.plan import format_bytes  # noqa: E402
from wizard.core.install.runner import InstallJob, run_steps  # noqa: E402

TORCH_REQS = ["torch==2.13.0", "torchvision==0.28.0"]
SCHEMA = "gpu-setup-wizard/bench-install@1.0"


def torch_payload(folder: Path, pair: bool) -> tuple[list[str], list[str]] | None:
    """(requirements, modules to import) with the wheels ``pip download`` finds (pip's own
    configuration on this machine decides where from); None when it cannot. ``pair``: torch
    and torchvision -- where the torchvision found is PyPI's next to a CPU torch, the pair does
    not import (``torchvision::nms``), so only torch is imported and the wizard refuses it."""
    reqs = TORCH_REQS if pair else TORCH_REQS[:1]
    res = subprocess.run([sys.executable, "-m", "pip", "download", *reqs, "--only-binary", ":all:",
                          "-d", str(folder), "-q"], capture_output=True, text=True, timeout=1800)
    if res.returncode != 0 or not list(folder.glob("torch-*.whl")):
        print(f"(no torch wheels: {(res.stderr or res.stdout).strip()[-200:]})", file=sys.stderr)
        return None
    return reqs, ["torch"]


def synthetic_payload(folder: Path) -> tuple[list[str], list[str]]:
    deps = [f"gsw-dep-{i}" for i in range(6)]
    for i, name in enumerate(deps):
        make_wheel(folder, name, "1.0", payload_bytes=8_000_000, seed=i)
    make_wheel(folder, "gsw-app", "1.0", requires=deps, many_files=3000)
    return ["gsw-app==1.0"], ["gsw_app"]


def _py(env_dir: Path) -> str:
    return str(env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def _quiet_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    env.update(extra)
    return env


def plain_pip(env_dir: Path, index_url: str, reqs: list[str], pip_cache: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    subprocess.run([_py(env_dir), "-m", "pip", "--isolated", "install", "-q", "--disable-pip-version-check",
                    "--cache-dir", str(pip_cache), "--index-url", index_url, "--trusted-host", "127.0.0.1", *reqs],
                   check=True, env=_quiet_env())


def plain_uv(uv: str, env_dir: Path, index_url: str, reqs: list[str], uv_cache: Path,
             imports: list[str] | None = None) -> None:
    env = _quiet_env(UV_CACHE_DIR=str(uv_cache), UV_NO_PROGRESS="1")
    subprocess.run([uv, "venv", "-q", "--no-config", "--python", sys.executable, str(env_dir)], check=True, env=env)
    subprocess.run([uv, "pip", "install", "-q", "--no-config", "--python", _py(env_dir), "--index-url", index_url,
                    *reqs], check=True, env=env)
    if imports:
        subprocess.run([_py(env_dir), "-c", "import " + ", ".join(imports)], check=True)


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


def wizard(env_dir: Path, index_url: str, reqs: list[str], imports: list[str], cache: Path, uv_cache: Path,
           state: Path) -> dict:
    """The wizard's default job (installer auto, the app layer's new venv), on a worker thread."""
    from wizard.app.install import new_venv_target

    target = new_venv_target(str(env_dir), sys.executable, installer=INSTALLER_AUTO)
    opts = InstallOptions(reqs, index_url=index_url, cache_dir=str(cache), state_dir=str(state),
                          installer=INSTALLER_AUTO, uv_cache_dir=str(uv_cache), verify_imports=list(imports))
    job = InstallJob(target, opts, RealHost())
    results: list[bool] = []
    worker = threading.Thread(target=lambda: results.append(run_steps(job)))  # the GUI's worker thread
    with Heartbeat() as beat:
        worker.start()
        worker.join()
    summary = job.summary()
    if not (results and results[0]):
        print(f"  wizard stopped: {job.failure.message.text('en') if job.failure else '?'}", flush=True)
    summary["heartbeat_worst_ms"] = round(beat.worst_s * 1000, 1)
    return summary


def measure(idx: LoopbackIndex, fn: Callable[[], object]) -> dict:
    """One scenario, timed. The disk is synced first: a cold run writes ~100-700 MB (the
    installer's cache and the venv), and without it the next scenario in line pays for the
    write-back of the one before (seen here: the same offline install 0.5-4 s)."""
    idx.reset_counters()
    if hasattr(os, "sync"):
        os.sync()
    start = time.perf_counter()
    extra = fn()
    seconds = time.perf_counter() - start
    row = {"seconds": round(seconds, 3), "served_bytes": idx.total_bytes_served(),
           "served_file_bytes": idx.total_file_bytes_served()}
    if isinstance(extra, dict):
        row["reported_downloaded_bytes"] = extra.get("downloaded_bytes")
        row["installer"] = extra.get("installer")
        row["heartbeat_worst_ms"] = extra.get("heartbeat_worst_ms")
        row["steps_run"] = extra.get("steps_run")
        row["ok"] = bool(extra.get("ok"))
        if extra.get("error"):
            row["error"] = extra["error"]
    return row


def _median_row(rows: list[dict]) -> dict:
    """The median run of a warm scenario, with every run's seconds beside it."""
    ordered = sorted(rows, key=lambda r: r["seconds"])
    row = dict(ordered[len(ordered) // 2])
    row["all_seconds"] = [r["seconds"] for r in rows]
    row["served_bytes"] = max(r["served_bytes"] for r in rows)
    row["served_file_bytes"] = max(r["served_file_bytes"] for r in rows)
    row["reported_downloaded_bytes"] = max((r.get("reported_downloaded_bytes") or 0) for r in rows) \
        if any("reported_downloaded_bytes" in r for r in rows) else None
    row["ok"] = all(r.get("ok", True) for r in rows)
    return row


def one_round(idx: LoopbackIndex, work: Path, uv: str | None, reqs: list[str], imports: list[str],
              skip_pip: bool, repeats: int = 1) -> dict[str, dict]:
    """Each scenario cold (new caches), then warm ``repeats`` times into fresh venvs -- the warm
    runs of all scenarios interleaved, so a load that drifts hits them alike."""
    from wizard.app.install import VERIFY_IMPORTS

    url = idx.simple_url
    default = list(VERIFY_IMPORTS)
    runs: dict[str, Callable[[str], object]] = {}
    if not skip_pip:
        runs["plain pip"] = lambda name: plain_pip(work / name, url, reqs, work / "pip-cache")
    if uv:
        runs["plain uv"] = lambda name: plain_uv(uv, work / name, url, reqs, work / "uv-cache")
    runs["wizard"] = lambda name: wizard(work / name, url, reqs, default, work / "wcache", work / "wuv-cache",
                                         work / "state")
    if uv and imports:
        runs["plain uv + import"] = lambda name: plain_uv(uv, work / name, url, reqs, work / "uv-cache-i", imports)
        runs["wizard + import"] = lambda name: wizard(work / name, url, reqs, imports, work / "wcache-i",
                                                      work / "wuv-cache-i", work / "state")
    rows: dict[str, dict] = {}
    for n, (label, fn) in enumerate(runs.items()):
        rows[f"{label} cold"] = measure(idx, lambda: fn(f"env {n} cold"))
    warm_rows: dict[str, list[dict]] = {label: [] for label in runs}
    for i in range(max(1, repeats)):
        for n, (label, fn) in enumerate(runs.items()):
            warm_rows[label].append(measure(idx, lambda: fn(f"env {n} warm {i}")))
    for label, got in warm_rows.items():
        rows[f"{label} warm"] = _median_row(got)
    return rows


def summarise(rounds: list[dict[str, dict]], wheel_bytes: int) -> dict:
    names = list(rounds[0])
    median = {n: {"seconds": round(statistics.median(r[n]["seconds"] for r in rounds), 3),
                  "served_bytes": max(r[n]["served_bytes"] for r in rounds),
                  "ok": all(r[n].get("ok", True) for r in rounds)} for n in names}
    ratios = {}
    pairs = (("wizard", "plain uv"), ("wizard", "plain pip"), ("wizard + import", "plain uv + import"))
    for kind in ("cold", "warm"):
        for mine, base in pairs:
            w, b = median.get(f"{mine} {kind}"), median.get(f"{base} {kind}")
            if w and b and w["ok"] and b["seconds"] > 0:
                ratios[f"{mine} / {base} {kind}"] = round(w["seconds"] / b["seconds"], 3)
    cold = [r["wizard cold"] for r in rounds]
    warm = [r["wizard warm"] for r in rounds]
    checks = {
        "wizard cold served / wheels": round(max(c["served_bytes"] for c in cold) / wheel_bytes, 4),
        "wizard warm served file bytes": max(w["served_file_bytes"] for w in warm),
        "wizard warm served bytes (pages, metadata too)": max(w["served_bytes"] for w in warm),
        "reported downloaded_bytes equals index-counted file bytes": all(
            c.get("reported_downloaded_bytes") == c["served_file_bytes"] for c in cold + warm),
    }
    return {"median": median, "ratios": ratios, "checks": checks}


def print_table(result: dict) -> None:
    print()
    print("| scenario | median time | bytes served by the index |")
    print("| --- | ---: | ---: |")
    for name, row in result["median"].items():
        note = "" if row["ok"] else " (stopped: see the JSON's error)"
        print(f"| {name}{note} | {row['seconds']:.2f} s | {format_bytes(row['served_bytes'])} "
              f"({row['served_bytes']}) |")
    print()
    for name, ratio in result["ratios"].items():
        print(f"  {name}: {ratio:.2f}×")
    for name, value in result["checks"].items():
        print(f"  {name}: {value}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--synthetic", action="store_true", help="generated wheels, not torch")
    ap.add_argument("--pair", action="store_true",
                    help="torch 2.13.0 + torchvision 0.28.0 as found here (the wizard refuses a mixed pair)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (medians are reported)")
    ap.add_argument("--skip-pip", action="store_true", help="leave plain pip out (it is the slowest)")
    ap.add_argument("--warm-repeats", type=int, default=3, help="warm runs per round (their median counts)")
    ap.add_argument("--no-import", action="store_true", help="leave the + import scenarios out")
    ap.add_argument("--out", help="write the results as JSON here (benchmarks/run: artifacts/bench/install.json)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args(argv)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    work = Path(tempfile.mkdtemp(prefix="gsw bench 김 "))
    wheels = work / "wheels"
    wheels.mkdir()
    found = None if args.synthetic else torch_payload(wheels, args.pair)
    payload = "torch 2.13.0 + torchvision 0.28.0 + dependencies" if args.pair else "torch 2.13.0 + dependencies"
    if found is None:
        found = synthetic_payload(wheels)
        payload = "generated wheels"
    reqs, imports = found
    uv = envs.find_uv()
    rounds = []
    with LoopbackIndex() as idx:
        idx.add_wheels(sorted(wheels.glob("*.whl")))
        total = sum(f.size for f in idx.files.values())
        print(f"payload: {payload}: {len(idx.files)} files, {format_bytes(total)}; Python {sys.version.split()[0]}; "
              f"{os.cpu_count()} CPUs; uv {'yes' if uv else 'no'}", flush=True)
        for n in range(max(1, args.rounds)):
            folder = work / f"round {n + 1}"
            folder.mkdir()
            rows = one_round(idx, folder, uv, reqs, [] if args.no_import else imports, args.skip_pip,
                             args.warm_repeats)
            for name, row in rows.items():
                print(f"  [{n + 1}] {name:<24} {row['seconds']:7.2f} s   served {format_bytes(row['served_bytes'])}",
                      flush=True)
            rounds.append(rows)
            shutil.rmtree(folder, ignore_errors=True)
    result = {"schema": SCHEMA, "payload": payload, "wheel_files": len(idx.files), "wheel_bytes": total,
              "python": sys.version.split()[0], "cpus": os.cpu_count(), "rounds": rounds,
              **summarise(rounds, total)}
    print_table(result)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {out}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
