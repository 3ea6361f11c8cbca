"""The verification's checks of what runs on top of torch: a tiny BERT (transformers, no Hub)
and TensorFlow (in a child process). Run by the target environment's Python, as part of
``verify.py``: Python 3.8 syntax, the standard library and torch only; ``transformers`` and
``tensorflow`` are imported by name, only where they are installed.

In a module of its own so that verify.py holds torch's own checks; :class:`ModelChecks` is a
base of verify's ``Verifier`` and uses its ``ch`` (the event channel), ``torch``, ``args``,
``cuda_devices``, ``kernel_ok`` and ``progress``.
"""

import importlib
import importlib.util
import json
import os
import sys
import time

import _common as C

TINY_BERT = {"hidden": 128, "batch": 2, "seq": 16}  # BertConfig(hidden_size=128, 2 layers, 2 heads): ~0.6 M weights

TF_SNIPPET = (
    "import json, os\n"
    "os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')\n"
    "import tensorflow as tf\n"
    "gpus = [d.name for d in tf.config.list_physical_devices('GPU')]\n"
    "built = None\n"
    "try:\n"
    "    built = bool(tf.test.is_built_with_cuda())\n"
    "except Exception:\n"
    "    pass\n"
    "growth, growth_error = None, None\n"
    "if gpus:\n"
    "    try:\n"
    "        for d in tf.config.list_physical_devices('GPU'):\n"
    "            tf.config.experimental.set_memory_growth(d, True)\n"
    "        growth = True\n"
    "    except (RuntimeError, ValueError) as e:\n"
    "        growth, growth_error = False, str(e)[:300]\n"
    "print('GSW-TF ' + json.dumps({'version': tf.__version__, 'gpus': gpus, 'built_with_cuda': built,\n"
    "                             'memory_growth': growth, 'memory_growth_error': growth_error}))\n"
)


class ModelChecks(object):
    """The checks of a small model and of TensorFlow (see the module docstring)."""

    def check_tiny_bert(self):
        """The course's "small model on the GPU" check without the Hub: a BERT built from a config
        (random weights, nothing downloaded; HF_HUB_OFFLINE=1 while it runs), one forward pass on
        the first CUDA GPU (else the CPU), its output shape and peak memory."""
        torch = self.torch
        try:
            spec = importlib.util.find_spec("transformers")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            self.ch.check("model.tiny_bert", "skip", evidence={"installed": False}, detail="tiny_bert_absent",
                          fix="add_transformers", params={"python": sys.executable})
            return
        self.progress("model.tiny_bert")
        saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        try:
            try:
                # imported here, by name: the probe itself needs only the stdlib and torch
                transformers = importlib.import_module("transformers")
                BertConfig, BertModel = transformers.BertConfig, transformers.BertModel
            except Exception as exc:  # installed but broken (a torch it does not support, a missing dependency)
                self.ch.check("model.tiny_bert", "fail", evidence=C.exc_info(exc), cause="transformers_broken",
                              fix="transformers_reinstall", params={"python": sys.executable})
                return
            self._tiny_bert_run(torch, transformers.__version__, BertConfig, BertModel)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def _tiny_bert_run(self, torch, version, BertConfig, BertModel):
        on_gpu = self.cuda_devices > 0 and self.kernel_ok.get(0) is not False
        dev = torch.device("cuda", 0) if on_gpu else torch.device("cpu")
        config = BertConfig(hidden_size=TINY_BERT["hidden"], num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=512, vocab_size=1000)
        torch.manual_seed(4)
        model = BertModel(config).eval().to(dev)
        batch, seq = TINY_BERT["batch"], TINY_BERT["seq"]
        ids = torch.randint(0, config.vocab_size, (batch, seq), generator=torch.Generator().manual_seed(5))
        if on_gpu:
            torch.cuda.synchronize(dev)
            torch.cuda.reset_peak_memory_stats(dev)
        start = time.perf_counter()
        with torch.no_grad():
            out = model(input_ids=ids.to(dev)).last_hidden_state
        if on_gpu:
            torch.cuda.synchronize(dev)
        elapsed = time.perf_counter() - start
        shape = [int(x) for x in out.shape]
        expected = [batch, seq, TINY_BERT["hidden"]]
        finite = bool(torch.isfinite(out).all().item())
        ok = shape == expected and finite
        peak = int(torch.cuda.max_memory_allocated(dev)) if on_gpu else None
        params = sum(int(p.numel()) for p in model.parameters())
        self.ch.check("model.tiny_bert", "pass" if ok else "fail", device=dev.index if on_gpu else None,
                      evidence={"transformers": version, "device": str(dev), "shape": shape, "expected": expected,
                                "finite": finite, "peak_bytes": peak, "parameters": params,
                                "seconds": round(elapsed, 4), "hub_offline": os.environ.get("HF_HUB_OFFLINE")},
                      cause=None if ok else "wrong_result", fix=None if ok else "reinstall_torch",
                      detail=("tiny_bert_gpu" if on_gpu else "tiny_bert_cpu") if ok else "tiny_bert_shape",
                      params={"shape": "x".join(str(x) for x in shape), "expected": "x".join(str(x) for x in expected),
                              "peak_mib": "%.1f" % (peak / 2.0 ** 20) if peak is not None else "-",
                              "version": version, "params_m": "%.2f" % (params / 1e6)})

    def check_tensorflow(self, driver):
        try:
            spec = importlib.util.find_spec("tensorflow")
        except (ImportError, ValueError) as exc:
            spec = None
            self.ch.check("tensorflow", "skip", evidence={"error": str(exc)}, detail="tf_not_installed")
            return
        if spec is None:
            self.ch.check("tensorflow", "skip", evidence={"installed": False}, detail="tf_not_installed")
            return
        # In a child process: TensorFlow and torch load different CUDA libraries, and a TF import
        # that crashes must not take the verification down with it.
        res = C.run_child([sys.executable, "-c", TF_SNIPPET], timeout=self.args.tensorflow_timeout)
        found = None
        for line in res["stdout"].splitlines():
            if line.startswith("GSW-TF "):
                try:
                    found = json.loads(line[len("GSW-TF "):])
                except ValueError:
                    found = None
        evidence = {"returncode": res["returncode"], "timed_out": res["timed_out"],
                    "stderr_tail": C.clip(res["stderr"], 3000)}
        if found is None:
            self.ch.check("tensorflow", "fail", evidence=evidence, cause="tf_import_failed", fix="tf_reinstall")
            return
        evidence.update(found)
        gpu_expected = self.cuda_devices > 0 or bool(driver.get("found"))
        if found.get("gpus"):
            status, cause, fix = "pass", None, None
        elif gpu_expected:  # the route differs: WSL2 on Windows (no native GPU after 2.10), [and-cuda] on Linux
            windows = sys.platform.startswith("win")
            status, cause, fix = ("warn", "tf_no_gpu", "tf_gpu_setup") if windows else \
                ("warn", "tf_no_gpu_linux", "tf_and_cuda")
        else:
            status, cause, fix = "pass", None, None
        self.ch.check("tensorflow", status, evidence=evidence, cause=cause, fix=fix, detail="tf_gpus",
                      params={"version": found.get("version"), "count": len(found.get("gpus") or [])})
