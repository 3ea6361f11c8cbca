"""Real saved-tensor counting on the CPU for one model SPEC: the reference the meta measurement is checked against.

``python vram_measure_cpu.py SPEC BATCH [INPUT] [--no-mkldnn] [--cuda]`` in a Python with torch;
prints one JSON object. With ``--cuda`` (a CUDA build on a GPU) the same count runs on the GPU's
own kernels (cuDNN's LSTM keeps its reserve space, not the CPU's oneDNN workspace), and one real
AdamW step gives ``torch.cuda.max_memory_allocated`` (``peak_bytes``; weights, gradients, optimizer
state, activations and the step's temporaries, the CUDA context not included) for the comparison
the issue asks for on a GPU. The model is built by the probe's own builder (wizard/probe/vram_measure.py, so the
same model, inputs and loss), on real CPU tensors with real weights, and counted by the tests'
worker (tests/vram_measure_worker.py ``saved_bytes``: storages deduplicated by data pointer,
parameters left out), which is the counting that measured the catalogue's figures: an
independent count, not the probe's.
"""

import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    spec, batch = args[0], int(args[1])
    shape_text = args[2] if len(args) > 2 else None
    probe = _load("vram_measure_probe", os.path.join(ROOT, "wizard", "probe", "vram_measure.py"))
    worker = _load("vram_measure_worker", os.path.join(ROOT, "tests", "vram_measure_worker.py"))
    import torch

    torch.set_num_threads(2)
    if "--no-mkldnn" in sys.argv:
        torch.backends.mkldnn.enabled = False
    probe.import_torchvision()
    torch.manual_seed(0)
    model, (pos, kw, labels) = probe.build(torch, spec, batch, probe.parse_shape(shape_text))
    model.train()
    doc = {"spec": spec, "batch": batch, "params": sum(p.numel() for p in model.parameters()),
           "torch": torch.__version__, "device": "cpu"}
    if "--cuda" in sys.argv:
        doc.update(_on_cuda(torch, worker, probe, model, pos, kw, labels))
    else:
        doc["saved_bytes"] = worker.saved_bytes(model, lambda: probe.loss_of(torch, model(*pos, **kw), labels))
    print(json.dumps(doc))


def _on_cuda(torch, worker, probe, model, pos, kw, labels):
    """Saved bytes counted on the GPU, then the peak of one real AdamW step (fp32)."""
    dev = torch.device("cuda")
    move = (lambda x: x.to(dev) if isinstance(x, torch.Tensor) else x)
    model = model.to(dev)
    pos = [move(x) for x in pos]
    kw = {k: move(v) for k, v in kw.items()}
    labels = move(labels)
    saved = worker.saved_bytes(model, lambda: probe.loss_of(torch, model(*pos, **kw), labels))
    opt = torch.optim.AdamW(model.parameters())
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()  # weights and inputs
    probe.loss_of(torch, model(*pos, **kw), labels).backward()
    opt.step()
    torch.cuda.synchronize()
    return {"device": torch.cuda.get_device_name(0), "saved_bytes": saved,
            "peak_bytes": torch.cuda.max_memory_allocated(), "before_step_bytes": before,
            "cudnn": torch.backends.cudnn.version()}


if __name__ == "__main__":
    main()
