"""Real saved-tensor counting on the CPU for one model SPEC: the reference the meta measurement is checked against.

``python vram_measure_cpu.py SPEC BATCH [INPUT] [--no-mkldnn]`` in a Python with torch; prints one
JSON object. The model is built by the probe's own builder (wizard/probe/vram_measure.py, so the
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
    saved = worker.saved_bytes(model, lambda: probe.loss_of(torch, model(*pos, **kw), labels))
    print(json.dumps({"spec": spec, "batch": batch, "saved_bytes": saved,
                      "params": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}))


if __name__ == "__main__":
    main()
