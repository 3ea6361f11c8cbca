"""Measure a model's GPU memory from the model itself, on the ``meta`` device, in the target environment.

``python vram_measure.py --spec SPEC --batch N --mode train|inference|lora --dtype fp32|fp16|bf16
--optimizer adamw|sgd [--input SHAPE]``. stdlib + torch only, Python 3.8 syntax, torch 2.0+;
one JSON object per line on stdout (see _common.py); never ``import wizard``.

Why on ``meta``: a meta tensor has a shape, a dtype and a storage size but no memory, so the
model is built, run forward and backward, and every tensor autograd keeps is counted, without a
GPU, without downloading weights and without the memory the model needs (a 7B model's forward
takes seconds). What is counted, for each batch asked (``--batch`` and one more, so the wizard
can draw the line through them and find the largest batch that fits):

- weights, gradients: the parameters' bytes (the trained ones' for gradients);
- optimizer state by its rule: AdamW two fp32 states per trained parameter, SGD without momentum none;
- activations, training: every tensor autograd saves for backward during the forward and the loss
  (``torch.autograd.graph.saved_tensors_hooks``), each storage once, parameters left out: the
  same counting that measured the catalogue's figures on real tensors;
- activations, inference: the most bytes of op-created tensors alive at once under ``no_grad``.

Mixed precision (``--dtype fp16|bf16`` when training) is autocast as it behaves on a CUDA GPU:
autocast does nothing for meta tensors, so :class:`GpuBehaviour` (``_gpu_behaviour.py``) applies CUDA autocast's own op
lists (matmuls and convolutions in 16-bit, norms, softmax and losses in fp32, a weight's 16-bit
copy made once per forward) with fp32 master weights, as ``torch.autocast`` plus a GradScaler
trains. Inference in 16-bit converts the model (``model.half()``), as serving does.

SPEC: ``torchvision:NAME``, ``timm:NAME``, ``hf:MODEL_TYPE`` (transformers' default config for that
type, random weights, no download), a folder holding ``config.json``, or ``FILE.py:FUNC`` where
``FUNC(batch)`` returns ``(model, example_inputs)`` (a tuple of tensors, or a dict of keyword inputs).

A model that cannot run on meta tensors (it reads a tensor's values, calls a compiled extension)
gives an ``error`` line ``meta-failed`` with the reason and, where the model was built, its
parameter count, so the wizard can fall back to its estimate and say so.
"""

import argparse
import contextlib
import importlib
import importlib.util
import os
import sys
import time
import types
import weakref

sys.dont_write_bytecode = True  # leave no __pycache__ in the wizard's (maybe read-only) folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C  # noqa: E402
from _gpu_behaviour import GpuBehaviour  # noqa: E402  (the same folder)

MODES = ("train", "inference", "lora")
DTYPES = ("fp32", "fp16", "bf16")
OPTIMIZERS = ("adamw", "sgd")
OPTIMIZER_STATES = {"adamw": 2, "sgd": 0}  # fp32 states per trained parameter (SGD without momentum)
LORA_RANK = 16
# Hugging Face PEFT's default targets for the common families (q and v projections)
LORA_TARGETS = ("q_proj", "v_proj", "query", "value", "q", "v", "c_attn", "q_lin", "v_lin")
DEFAULT_SEQ = 512
DEFAULT_IMAGE = (3, 224, 224)


def parse_args(argv):
    p = argparse.ArgumentParser(description="GPU setup wizard: VRAM measured on the meta device")
    p.add_argument("--spec", required=True)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--mode", choices=MODES, default="train")
    p.add_argument("--dtype", choices=DTYPES, default="fp32")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adamw")
    p.add_argument("--input", default=None, help="input shape without the batch: 3x224x224, or a sequence length")
    p.add_argument("--device", choices=("meta", "cpu"), default="meta",
                   help="cpu: the same counting on real tensors (the agreement check)")
    return p.parse_args(argv)


class MeasureError(Exception):
    """Why the model cannot be measured: ``id`` names it for the wizard, ``params`` when it was built."""

    def __init__(self, id_, message, params=None):
        Exception.__init__(self, message)
        self.id = id_
        self.params = params


# --------------------------------------------------------------------------- the model
def parse_shape(text):
    """'3x224x224' / '3,224,224' / '128' -> a tuple of ints (without the batch)."""
    if not text:
        return None
    parts = text.replace(",", "x").replace("X", "x").split("x")
    try:
        shape = tuple(int(p) for p in parts if p.strip())
    except ValueError:
        raise MeasureError("bad-input", "the input shape %r is not numbers separated by x" % text)
    if not shape or any(n <= 0 for n in shape):
        raise MeasureError("bad-input", "the input shape %r has an empty or non-positive size" % text)
    return shape


def import_torchvision():
    """torchvision, importable even when its compiled ops are built for another torch (a CUDA
    wheel beside a CPU torch): registering their meta kernels then fails at import, but the
    models are plain Python and build and run without that module. transformers and timm import
    torchvision when it is installed, so this runs before either. Returns (module or None, note)."""
    if importlib.util.find_spec("torchvision") is None:
        return None, None
    try:
        return importlib.import_module("torchvision"), None
    except RuntimeError as exc:
        if "torchvision::" not in str(exc):
            raise
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
        sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
        return importlib.import_module("torchvision"), meta_reason(exc)


def _image_inputs(torch, batch, shape, num_classes):
    x = torch.randn((batch,) + tuple(shape))
    return (x,), {}, torch.zeros(batch, dtype=torch.long) if num_classes else None


def build_torchvision(torch, name, batch, shape):
    tv = import_torchvision()[0]
    if tv is None:
        raise MeasureError("missing-library", "torchvision is not installed in this environment")
    try:
        model = tv.models.get_model(name, weights=None)
    except (ValueError, KeyError):
        raise MeasureError("unknown-model", "torchvision has no model %r" % name)
    return model, _image_inputs(torch, batch, shape or DEFAULT_IMAGE, True)


def build_timm(torch, name, batch, shape):
    try:
        timm = importlib.import_module("timm")
    except ImportError:
        raise MeasureError("missing-library", "timm is not installed in this environment")
    try:
        model = timm.create_model(name, pretrained=False)
    except RuntimeError as exc:
        raise MeasureError("unknown-model", str(exc))
    cfg = getattr(model, "pretrained_cfg", None) or getattr(model, "default_cfg", None) or {}
    return model, _image_inputs(torch, batch, shape or tuple(cfg.get("input_size") or DEFAULT_IMAGE), True)


def _hf_model(transformers, config):
    """The model a student trains for this config: seq2seq LM, image classifier, causal LM, or classifier."""
    auto = transformers
    if getattr(config, "is_encoder_decoder", False):
        order = ("AutoModelForSeq2SeqLM",)
    elif getattr(config, "num_channels", None) and not getattr(config, "vocab_size", None):
        order = ("AutoModelForImageClassification",)
    else:
        order = ("AutoModelForCausalLM", "AutoModelForSequenceClassification", "AutoModelForMaskedLM")
    last = None
    for name in order + ("AutoModel",):
        try:
            return getattr(auto, name).from_config(config), name
        except (ValueError, KeyError, AttributeError) as exc:
            last = exc
    raise MeasureError("unknown-model", "no transformers model class for %s: %s" % (config.model_type, last))


def build_hf(torch, spec, batch, shape):
    try:
        transformers = importlib.import_module("transformers")
    except ImportError:
        raise MeasureError("missing-library", "transformers is not installed in this environment")
    try:
        if os.path.isdir(spec):
            config = transformers.AutoConfig.from_pretrained(spec, local_files_only=True)
        else:
            config = transformers.AutoConfig.for_model(spec)
    except (ValueError, KeyError, OSError) as exc:
        raise MeasureError("unknown-model", str(exc).splitlines()[0] if str(exc) else repr(exc))
    if getattr(config, "is_encoder_decoder", False) and getattr(config, "decoder_start_token_id", None) is None:
        # labels are shifted right into the decoder's input from this token (a bare default config has none)
        config.decoder_start_token_id = getattr(config, "pad_token_id", None) or 0
    model, kind = _hf_model(transformers, config)
    if kind == "AutoModelForImageClassification":
        size = getattr(config, "image_size", 224)
        size = size[0] if isinstance(size, (list, tuple)) else size
        shape = shape or (getattr(config, "num_channels", 3), size, size)
        x = torch.randn((batch,) + tuple(shape))
        return model, ((), {"pixel_values": x, "labels": torch.zeros(batch, dtype=torch.long)}, None)
    limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    seq = shape[-1] if shape else min(DEFAULT_SEQ, limit or DEFAULT_SEQ)
    ids = torch.zeros((batch, seq), dtype=torch.long)
    if kind in ("AutoModelForSeq2SeqLM", "AutoModelForCausalLM", "AutoModelForMaskedLM"):
        labels = torch.zeros((batch, seq), dtype=torch.long)
    elif kind == "AutoModelForSequenceClassification":
        labels = torch.zeros(batch, dtype=torch.long)
    else:
        labels = None
    kwargs = {"input_ids": ids}
    if labels is not None:
        kwargs["labels"] = labels
    return model, ((), kwargs, None)


def build_file(torch, spec, batch):
    path, _, func = spec.rpartition(":")
    if not os.path.isfile(path):
        raise MeasureError("unknown-model", "no such file: %s" % path)
    module_spec = importlib.util.spec_from_file_location("_student_model", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module_spec.loader.exec_module(module)
    fn = getattr(module, func, None)
    if not callable(fn):
        raise MeasureError("unknown-model", "%s has no function %s(batch)" % (path, func))
    made = fn(batch)
    if not isinstance(made, (tuple, list)) or len(made) != 2:
        raise MeasureError("bad-model", "%s(batch) must return (model, example_inputs)" % func)
    model, inputs = made
    if isinstance(inputs, dict):
        return model, ((), dict(inputs), None)
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    return model, (tuple(inputs), {}, None)


def build(torch, spec, batch, shape):
    """(model, (args, kwargs, labels or None)) for one batch, built on the current default device."""
    kind, sep, name = spec.partition(":")
    if sep and kind == "torchvision":
        return build_torchvision(torch, name, batch, shape)
    if sep and kind == "timm":
        return build_timm(torch, name, batch, shape)
    if sep and kind == "hf":
        return build_hf(torch, name, batch, shape)
    if os.path.isdir(spec):
        if not os.path.isfile(os.path.join(spec, "config.json")):
            raise MeasureError("unknown-model", "the folder %s has no config.json" % spec)
        return build_hf(torch, spec, batch, shape)
    if ".py:" in spec:
        return build_file(torch, spec, batch)
    raise MeasureError("bad-spec", "not a model spec: %r (torchvision:NAME, timm:NAME, hf:TYPE, a folder, "
                                   "or FILE.py:FUNC)" % spec)


# --------------------------------------------------------------------------- counting
def storage_key(t):
    """The storage's identity: its StorageImpl (meta storages have no data pointer)."""
    st = t.untyped_storage()
    return st._cdata, st.nbytes()


def tensors_in(value):
    if hasattr(value, "loss") and getattr(value, "loss", None) is not None:
        return [value.loss]
    if isinstance(value, dict) or hasattr(value, "values") and hasattr(value, "keys"):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(tensors_in(v))
        return out
    return [value] if hasattr(value, "grad_fn") else []


def loss_of(torch, output, labels):
    """The training loss: the model's own (.loss), cross-entropy for class scores, else a mean."""
    if getattr(output, "loss", None) is not None:
        return output.loss
    found = [t for t in tensors_in(output) if t.is_floating_point()]
    if not found:
        raise MeasureError("bad-model", "the model's output holds no floating-point tensor to train on")
    first = found[0]
    if labels is not None and first.dim() == 2 and first.shape[0] == labels.shape[0]:
        return torch.nn.functional.cross_entropy(first, labels)
    return sum(t.float().mean() for t in found)


def saved_bytes(torch, params, run_loss):
    """Bytes autograd saves during ``run_loss()``, each storage once, parameters left out."""
    seen = {}

    def pack(t):
        key, nbytes = storage_key(t)
        if key not in params:
            seen[key] = max(seen.get(key, 0), nbytes)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = run_loss()
    return sum(seen.values()), loss


def live_peak_bytes(torch, excluded, run):
    """The most bytes of op-created storages alive at once during ``run()`` (inference)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class LiveBytes(TorchDispatchMode):
        def __init__(self):
            TorchDispatchMode.__init__(self)
            self.refs, self.sizes, self.live, self.peak = {}, {}, 0, 0

        def _release(self, key):
            self.refs[key] -= 1
            if self.refs[key] == 0:
                self.live -= self.sizes.pop(key)
                del self.refs[key]

        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in (out if isinstance(out, (tuple, list)) else (out,)):
                if not isinstance(t, torch.Tensor):
                    continue
                key, nbytes = storage_key(t)
                if key in excluded:
                    continue
                if key not in self.refs:
                    self.refs[key], self.sizes[key] = 0, nbytes
                    self.live += nbytes
                self.refs[key] += 1
                weakref.finalize(t, self._release, key)
            self.peak = max(self.peak, self.live)
            return out

    mode = LiveBytes()
    with mode:
        out = run()
    del out
    return mode.peak


def add_lora(torch, model):
    """Freeze every parameter, then wrap the q/v projections (every Linear where none is named so)
    with rank-16 fp32 adapters, as PEFT does. Returns the adapters' parameter count."""
    nn = torch.nn

    class LoraLinear(nn.Module):
        def __init__(self, base):
            nn.Module.__init__(self)
            self.base = base
            self.lora_a = nn.Linear(base.in_features, LORA_RANK, bias=False, dtype=torch.float32)
            self.lora_b = nn.Linear(LORA_RANK, base.out_features, bias=False, dtype=torch.float32)

        def forward(self, x):
            return self.base(x) + self.lora_b(self.lora_a(x.to(torch.float32))).to(x.dtype) * 2.0

    for p in model.parameters():
        p.requires_grad_(False)
    linears = [(m, n, c) for m in model.modules() for n, c in m.named_children() if isinstance(c, nn.Linear)]
    chosen = [x for x in linears if x[1] in LORA_TARGETS] or linears
    count = 0
    for module, name, child in chosen:
        setattr(module, name, LoraLinear(child))
        count += LORA_RANK * (child.in_features + child.out_features)
    return count


def on_device(torch, value, device):
    if isinstance(value, torch.Tensor):
        return value if value.device.type == device else value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(on_device(torch, v, device) for v in value)
    if isinstance(value, dict):
        return dict((k, on_device(torch, v, device)) for k, v in value.items())
    return value


def measure_batch(torch, args, batch, shape, backward=True):
    """One batch: build on the device, count (and run the backward). A dict of bytes and counts."""
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    ctx = torch.device(args.device) if hasattr(torch, "device") and args.device == "meta" else contextlib.nullcontext()
    torch.manual_seed(0)
    try:
        with ctx:
            model, (pos, kw, labels) = build(torch, args.spec, batch, shape)
    except (MeasureError, SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:  # the library or the student's file fails before any counting
        raise MeasureError("build-failed", meta_reason(exc))
    if not isinstance(model, torch.nn.Module):
        raise MeasureError("bad-model", "the spec gave %s, not a torch.nn.Module" % type(model).__name__)
    if any(p.device.type != args.device for p in model.parameters()):
        model = model.to(args.device)
    pos, kw, labels = on_device(torch, pos, args.device), on_device(torch, kw, args.device), \
        on_device(torch, labels, args.device)
    params = sum(p.numel() for p in model.parameters())
    amp = args.mode != "inference" and args.dtype != "fp32"
    adapters = 0
    if args.mode == "inference":
        model.eval()
        model.to(dtype)
        pos, kw = cast_floats(torch, pos, dtype), cast_floats(torch, kw, dtype)
    elif args.mode == "lora":
        model.to(dtype)  # the frozen base stored in 16-bit (fp32 asked: fp32)
        adapters = add_lora(torch, model.to(args.device))
        model.to(args.device)
        model.train()
    else:
        model.train()
    trainable = [p for p in model.parameters() if p.requires_grad] if args.mode != "inference" else []
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    row = {"batch": batch, "params": params, "trainable_params": sum(p.numel() for p in trainable),
           "lora_adapters": adapters, "weights_bytes": weights,
           "gradients_bytes": sum(p.numel() * p.element_size() for p in trainable),
           "optimizer_bytes": OPTIMIZER_STATES[args.optimizer] * sum(p.numel() * 4 for p in trainable),
           "buffers_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
           # LSTM/GRU/RNN layers: meta runs their generic kernels; a GPU's cuDNN keeps a reserve of
           # its own for backward that no meta kernel knows (torch's own meta _cudnn_rnn says 0)
           "recurrent_layers": sum(1 for m in model.modules() if isinstance(m, torch.nn.RNNBase))}
    param_keys = set(storage_key(p)[0] for p in model.parameters())
    if args.mode == "inference":
        excluded = param_keys | set(storage_key(b)[0] for b in model.buffers())
        excluded |= set(storage_key(t)[0] for t in list(pos) + list(kw.values()) if isinstance(t, torch.Tensor))
        with torch.no_grad(), GpuBehaviour.make(torch):
            row["activations_bytes"] = live_peak_bytes(torch, excluded, lambda: model(*pos, **kw))
        row["saved_bytes"] = 0
        return row

    def run_loss():
        with GpuBehaviour.make(torch, dtype if amp else None):
            return loss_of(torch, model(*pos, **kw), labels)

    saved, loss = saved_bytes(torch, param_keys, run_loss)
    row["saved_bytes"] = row["activations_bytes"] = saved
    if backward and loss.requires_grad:
        loss.backward()  # the backward runs too: an op without a meta backward shows here
    return row


def cast_floats(torch, value, dtype):
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast_floats(torch, v, dtype) for v in value)
    if isinstance(value, dict):
        return dict((k, cast_floats(torch, v, dtype)) for k, v in value.items())
    return value


def meta_reason(exc):
    """One line: why the model cannot run on meta tensors."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return "%s: %s" % (type(exc).__name__, C.clip(text, 300))


def main(argv=None):
    ch = C.Channel("vram_measure")
    C.install_hooks(ch)
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        ch.error("bad-arguments", message="invalid arguments: %s" % (sys.argv[1:] if argv is None else argv))
        return int(exc.code or 2)
    ch.progress("start", protocol=C.PROTOCOL, args=vars(args))
    torch, _ = C.import_torch(ch)
    if torch is None:
        ch.done(aborted=True)
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a config by name: never a download
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    start = time.monotonic()
    try:
        note = import_torchvision()[1]
        if note:
            ch.progress("torchvision_ops_unavailable", message=note)
        shape = parse_shape(args.input)
        if args.batch < 1:
            raise MeasureError("bad-input", "the batch must be at least 1")
        rows = []
        for batch in (args.batch, args.batch + 1):
            ch.progress("measure", batch=batch)
            try:  # the second batch only for the activations' growth: no second backward
                rows.append(measure_batch(torch, args, batch, shape, backward=not rows))
            except MeasureError:
                raise
            except Exception as exc:  # the model itself: it cannot run on meta tensors
                raise MeasureError("meta-failed", meta_reason(exc), params=built_params(torch, args, shape, ch))
    except MeasureError as exc:
        ch.error(exc.id, message=str(exc), params=exc.params)
        ch.done(aborted=True)
        return 0
    ch.result("vram_measure", spec=args.spec, mode=args.mode, dtype=args.dtype, optimizer=args.optimizer,
              device=args.device, input=list(shape) if shape else None, rows=rows,
              torch=torch.__version__, seconds=round(time.monotonic() - start, 3))
    ch.done()
    return 0


def built_params(torch, args, shape, ch):
    """The parameter count when only running failed; None, with a progress line saying why, when
    the model does not build on meta tensors either (the student's code may raise anything)."""
    try:
        with torch.device("meta"):
            model, _ = build(torch, args.spec, 1, shape)
        return int(sum(p.numel() for p in model.parameters()))
    except Exception as exc:  # noqa: BLE001 - any error of the model's own code is the answer here
        ch.progress("params_unknown", message=meta_reason(exc))
        return None


if __name__ == "__main__":
    sys.exit(main())
