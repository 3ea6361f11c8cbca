"""The Colab cell (and the same script for a cloud GPU over SSH) that fills the report's Colab and
cloud lines today, with nothing to install there.

Why this and not ``pip install gpu-setup-wizard`` on Colab: the wizard is not on PyPI. Its probe
scripts (``wizard/probe``: verify, the quick benchmark, their helpers) need only the standard
library and torch, which Colab and every cloud GPU image already have. So the cell carries them
inside it (zlib + base64, a few dozen kB), writes them to a temporary folder, runs them with the
interpreter the cell runs in, and writes one JSON document (schema
``gpu-setup-wizard/remote-probe@1.0``): the probes' events as they printed them, and
``nvidia-smi``'s output. The student adds that file to the report as any other remote result
(the Report page's "Add Colab/cloud result…", ``report --add-remote colab:FILE``); the reader is
:func:`wizard.core.report.remote.machine_from_remote_probe`, which reads the events with the same
code that reads this machine's own verify and benchmark.

Two forms: ``colab`` (paste into a cell: saves ``gpu-setup-result.json`` in the working folder
and, in Colab, offers it as a download) and ``ssh`` (run as ``python3 - < script`` on the
server: the document goes to standard output, progress to standard error, so
``gpu-setup-wizard colab-cell --ssh | ssh SERVER python3 - > cloud.json`` is one line).
"""

from __future__ import annotations

import base64
import zlib

from wizard.core.base.resources import probe_path

REMOTE_SCHEMA = "gpu-setup-wizard/remote-probe"
REMOTE_SCHEMA_VERSION = "1.0"
RESULT_NAME = "gpu-setup-result.json"
PROBE_FILES = ("_common.py", "_timing.py", "_models.py", "verify.py", "bench.py")  # every wizard/probe/*.py the probes import
FORMS = ("colab", "ssh")

# The cell's own code: Python 3.8 syntax, stdlib only (the probes bring torch in). It never
# raises for a probe's sake: a probe that fails still leaves its events and its stderr tail.
_BODY = r'''
import base64, datetime, json, os, platform, shutil, subprocess, sys, tempfile, zlib

def _probe(folder, name, args, timeout):
    argv = [sys.executable, "-u", os.path.join(folder, name)] + args
    env = dict(os.environ, PYTHONUTF8="1", PYTHONIOENCODING="utf-8")
    env.pop("PYTHONPATH", None)
    try:
        res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env)
        out, err, code = res.stdout.decode("utf-8", "replace"), res.stderr.decode("utf-8", "replace"), res.returncode
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode("utf-8", "replace")
        err, code = "timed out after %d s" % timeout, None
    events = []
    for line in out.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("event") in ("progress", "result", "error"):
            events.append(obj)
    return {"events": events, "returncode": code, "stderr_tail": err[-4000:]}

def _nvidia_smi():
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None, "nvidia-smi not found"
    try:
        res = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except Exception as exc:  # a hung or broken driver: say so in the result
        return None, "%s: %s" % (type(exc).__name__, exc)
    text = res.stdout.decode("utf-8", "replace")
    return (text, None) if res.returncode == 0 else (None, (text + res.stderr.decode("utf-8", "replace"))[-2000:])

def _say(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()

def _summary(verify, bench):
    """One line for the student: torch, CUDA, the GPU torch sees, the course's matmul times."""
    facts, times = {}, {}
    for e in verify["events"]:
        if e.get("type") == "facts" and isinstance(e.get("section"), str):
            facts[e["section"]] = e.get("data")
    for e in (bench or {}).get("events", []):
        if e.get("type") == "measurement" and e.get("id") == "course_matmul":
            times["CPU" if e.get("device") == "cpu" else "GPU"] = e.get("median_s")
    torch_facts = facts.get("torch") if isinstance(facts.get("torch"), dict) else {}
    cuda = facts.get("cuda") if isinstance(facts.get("cuda"), dict) else {}
    devices = [d.get("name") for d in facts.get("devices") or [] if isinstance(d, dict) and d.get("name")]
    parts = ["torch %s" % (torch_facts.get("version") or "not importable"),
             "CUDA %s" % ("available" if cuda.get("is_available") else "not available"),
             "GPU: %s" % (", ".join(devices) or "none")]
    parts += ["%s %.3g s" % (k, v) for k, v in sorted(times.items()) if isinstance(v, (int, float))]
    return "gpu-setup-wizard: " + " | ".join(parts)

def _main():
    folder = tempfile.mkdtemp(prefix="gsw-probe-")
    try:
        for name, blob in FILES.items():
            with open(os.path.join(folder, name), "wb") as fh:
                fh.write(zlib.decompress(base64.b64decode(blob)))
        colab = any(os.environ.get(v) for v in ("COLAB_RELEASE_TAG", "COLAB_GPU", "COLAB_BACKEND_VERSION"))
        _say("gpu-setup-wizard: verify ...")
        verify = _probe(folder, "verify.py", ["--skip", "tensorflow"], 600)
        bench = None
        if WITH_BENCH:
            _say("gpu-setup-wizard: quick benchmark (about a minute) ...")
            bench = _probe(folder, "bench.py", ["--suite", "quick"], 600)
        smi, smi_error = _nvidia_smi()
        _say(_summary(verify, bench))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    doc = {"schema": SCHEMA, "kind": "colab" if colab else KIND, "form": FORM,
           "made_at": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "platform": {"colab": colab, "system": platform.platform(), "python": platform.python_version()},
           "verify": verify, "bench": bench, "nvidia_smi": smi, "nvidia_smi_error": smi_error}
    text = json.dumps(doc, ensure_ascii=False)
    if FORM == "ssh":
        sys.stdout.write(text + "\n")
        return doc
    with open(RESULT, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    _say("gpu-setup-wizard: saved " + os.path.abspath(RESULT))
    if colab:
        try:
            from google.colab import files
            files.download(RESULT)
        except Exception as exc:  # no browser attached: the file stays in the Files pane
            _say("download it from the Files pane (%s)" % exc)
    return doc

_gsw_result = _main()  # kept in a name: Colab does not print the whole document
'''

_HEADER = {
    "colab": ("# GPU Setup Wizard: Colab check. Paste this whole cell into Colab and run it (Runtime >\n"
              "# Change runtime type > T4 GPU first). It runs the wizard's own verify and quick benchmark\n"
              "# scripts (standard library + torch, which Colab has) and saves gpu-setup-result.json;\n"
              "# add that file to your report: Report page > Add Colab/cloud result…, or\n"
              "#   gpu-setup-wizard report --add-remote colab:gpu-setup-result.json\n"),
    "ssh": ("# GPU Setup Wizard: cloud GPU check over SSH. Run it with the Python that has torch there:\n"
            "#   gpu-setup-wizard colab-cell --ssh | ssh USER@SERVER python3 - > cloud.json\n"
            "# (or copy this file there and run: python3 this_file.py > cloud.json). It runs the wizard's\n"
            "# own verify and quick benchmark scripts (standard library + torch) and prints one JSON\n"
            "# document; add it to your report: gpu-setup-wizard report --add-remote cloud:cloud.json\n"),
}


def _packed(name: str) -> str:
    data = probe_path(name).read_bytes()
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def colab_cell(form: str = "colab", *, bench: bool = True) -> str:
    """The cell's text for ``form`` ("colab" or "ssh"): self-contained Python 3.8+ source,
    stdlib only, carrying the probe scripts of this wizard version."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, not {form!r}")
    files = "".join(f"    {name!r}: {_packed(name)!r},\n" for name in PROBE_FILES)
    settings = (f"SCHEMA = {REMOTE_SCHEMA + '@' + REMOTE_SCHEMA_VERSION!r}\n"
                f"FORM = {form!r}\nKIND = {'colab' if form == 'colab' else 'cloud'!r}\n"
                f"RESULT = {RESULT_NAME!r}\nWITH_BENCH = {bench!r}\n"
                f"FILES = {{  # wizard/probe/*.py, zlib + base64\n{files}}}\n")
    return _HEADER[form] + settings + _BODY.lstrip("\n")


__all__ = ["colab_cell", "REMOTE_SCHEMA", "REMOTE_SCHEMA_VERSION", "RESULT_NAME", "PROBE_FILES", "FORMS"]
