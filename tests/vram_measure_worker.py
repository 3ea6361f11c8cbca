"""Measure what autograd keeps for one training step, in a Python that has torch (and transformers).

Run by :mod:`tests.vram_measure` inside a test venv (``python vram_measure_worker.py SPEC.json``);
it prints one JSON document. Why a separate file: it imports torch, which the wizard's own
interpreter never does, and it must run as a child process in the venv that holds torch.

What is counted:

- ``saved_bytes``: every tensor autograd saves for backward during the forward pass and the loss
  (``torch.autograd.graph.saved_tensors_hooks``), each storage once (deduplicated by the storage's
  data pointer, so a tensor saved by two ops, or a view of one, counts once), parameters left out
  (they are the weights, counted elsewhere);
- ``inference_peak_bytes``: under ``torch.no_grad()``, the most bytes of tensors that ops created
  and that were alive at the same time (a ``TorchDispatchMode`` sees every op's outputs; a weak
  reference tells when each storage dies), parameters and the input left out.

The ResNets are hand-written equivalents of torchvision's (torchvision's wheel does not import beside
this CPU torch): the same layers in the same order, so the same parameter counts (checked against the
catalogue). ``cifar_stem`` gives the course-notebook variant: a 3×3 stride-1 stem and no max-pool.
"""

from __future__ import annotations

import json
import os
import sys
import weakref

# This file lives in tests/, whose packages (tests/packaging) would shadow the real ones.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Models
# ------------------------------------------------------------------------------------------------

class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)  # stride on the 3x3 (v1.5)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """torchvision.models.resnet.ResNet, or with ``cifar_stem`` the kuangliu/pytorch-cifar variant."""

    def __init__(self, block, layers, num_classes: int = 1000, cifar_stem: bool = False):
        super().__init__()
        self.inplanes = 64
        if cifar_stem:
            self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
            self.maxpool = nn.Identity()
        else:
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], 2)
        self.layer3 = self._make_layer(block, 256, layers[2], 2)
        self.layer4 = self._make_layer(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride, bias=False),
                                       nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class MnistNet(nn.Module):
    """pytorch/examples mnist/main.py ``Net``."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        x = self.dropout1(torch.max_pool2d(x, 2))
        x = self.dropout2(torch.relu(self.fc1(torch.flatten(x, 1))))
        return torch.log_softmax(self.fc2(x), dim=1)


class CifarTutorialNet(nn.Module):
    """pytorch/tutorials beginner_source/blitz/cifar10_tutorial.py ``Net``."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc3(torch.relu(self.fc2(x)))


def _conv_bn_act(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, nn.SiLU(inplace=True)) if act else nn.Sequential(*layers)


class MBConv(nn.Module):
    """torchvision.models.efficientnet.MBConv: expand, depthwise, squeeze-excitation, project."""

    def __init__(self, expand: int, k: int, stride: int, cin: int, cout: int, drop: float):
        super().__init__()
        exp = cin * expand
        layers: list[nn.Module] = [_conv_bn_act(cin, exp, 1)] if exp != cin else []
        layers.append(_conv_bn_act(exp, exp, k, stride, groups=exp))
        self.block = nn.Sequential(*layers)
        sq = max(1, cin // 4)
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(exp, sq, 1), nn.SiLU(inplace=True),
                                nn.Conv2d(sq, exp, 1), nn.Sigmoid())
        self.project = _conv_bn_act(exp, cout, 1, act=False)
        self.residual = stride == 1 and cin == cout
        self.drop = drop

    def forward(self, x):
        out = self.block(x)
        out = self.project(out * self.se(out))
        if not self.residual:
            return out
        if self.training and self.drop > 0:  # torchvision's StochasticDepth(p, "row")
            survival = 1.0 - self.drop
            noise = torch.empty([out.shape[0], 1, 1, 1]).bernoulli_(survival).div_(survival)
            out = out * noise
        return out + x


class EfficientNetB0(nn.Module):
    """torchvision.models.efficientnet_b0: same stages, stochastic depth 0.2, dropout 0.2."""

    STAGES = ((1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
              (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1))

    def __init__(self, num_classes: int = 1000):
        super().__init__()
        total = sum(st[-1] for st in self.STAGES)
        blocks: list[nn.Module] = [_conv_bn_act(3, 32, 3, 2)]
        done = 0
        for expand, k, stride, cin, cout, n in self.STAGES:
            for i in range(n):
                blocks.append(MBConv(expand, k, stride if i == 0 else 1, cin if i == 0 else cout, cout,
                                     0.2 * done / total))
                done += 1
        blocks.append(_conv_bn_act(320, 1280, 1))
        self.features = nn.Sequential(*blocks)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


RESNETS = {"resnet18": (BasicBlock, [2, 2, 2, 2]), "resnet34": (BasicBlock, [3, 4, 6, 3]),
           "resnet50": (Bottleneck, [3, 4, 6, 3])}


def build_cnn(arch: str, num_classes: int, cifar_stem: bool) -> nn.Module:
    if arch == "mnist":
        return MnistNet()
    if arch == "cifar_tutorial":
        return CifarTutorialNet()
    if arch == "efficientnet_b0":
        return EfficientNetB0(num_classes)
    block, layers = RESNETS[arch]
    return ResNet(block, layers, num_classes, cifar_stem)


def build_transformer(spec: dict) -> nn.Module:
    """A transformers model from its config, random weights, no Hub access."""
    import transformers

    config = getattr(transformers, spec["config_class"])(**spec["config"])
    config._attn_implementation = spec.get("attn", "sdpa")
    return getattr(transformers, spec["model_class"])(config)


# ------------------------------------------------------------------------------------------------
# Counting
# ------------------------------------------------------------------------------------------------

def _storage_key(t: torch.Tensor) -> tuple[int, int]:
    st = t.untyped_storage()
    return st.data_ptr(), st.nbytes()


def saved_bytes(model: nn.Module, run_loss) -> int:
    """Bytes of the tensors autograd saves during ``run_loss()``, each storage once, parameters left out."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor):
        ptr, nbytes = _storage_key(t)
        if ptr and ptr not in params:
            seen[ptr] = max(seen.get(ptr, 0), nbytes)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = run_loss()
    del loss
    return sum(seen.values())


class _LiveBytes(TorchDispatchMode):
    """The peak bytes of op-created storages alive at once (inference under no_grad)."""

    def __init__(self, excluded: set[int]):
        super().__init__()
        self.excluded = excluded
        self.refs: dict[int, int] = {}  # storage pointer -> live tensors using it
        self.sizes: dict[int, int] = {}
        self.live = 0
        self.peak = 0

    def _release(self, ptr: int) -> None:
        self.refs[ptr] -= 1
        if self.refs[ptr] == 0:
            self.live -= self.sizes.pop(ptr)
            del self.refs[ptr]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in (out if isinstance(out, (tuple, list)) else (out,)):
            if not isinstance(t, torch.Tensor):
                continue
            ptr, nbytes = _storage_key(t)
            if not ptr or ptr in self.excluded:
                continue
            if ptr not in self.refs:
                self.refs[ptr], self.sizes[ptr] = 0, nbytes
                self.live += nbytes
            self.refs[ptr] += 1
            weakref.finalize(t, self._release, ptr)
        self.peak = max(self.peak, self.live)
        return out


def inference_peak_bytes(model: nn.Module, inputs: dict) -> int:
    excluded = {p.untyped_storage().data_ptr() for p in model.parameters()}
    excluded |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    excluded |= {v.untyped_storage().data_ptr() for v in inputs.values() if isinstance(v, torch.Tensor)}
    model.eval()
    mode = _LiveBytes(excluded)
    with torch.no_grad(), mode:
        out = model(**inputs)
    del out
    model.train()
    return mode.peak


# ------------------------------------------------------------------------------------------------
# One measurement
# ------------------------------------------------------------------------------------------------

def add_lora(model: nn.Module, targets: tuple[str, ...], rank: int) -> int:
    """Freeze every parameter, then wrap the named linear layers with rank-``rank`` adapters (PEFT's shape)."""

    def features(layer: nn.Module) -> tuple[int, int] | None:
        if isinstance(layer, nn.Linear):
            return layer.in_features, layer.out_features
        if type(layer).__name__ == "Conv1D":  # GPT-2's linear layers: weight (in, out)
            return tuple(layer.weight.shape)
        return None

    class LoraLinear(nn.Module):
        def __init__(self, base: nn.Module, d_in: int, d_out: int):
            super().__init__()
            self.base = base
            self.lora_a = nn.Linear(d_in, rank, bias=False)
            self.lora_b = nn.Linear(rank, d_out, bias=False)
            nn.init.zeros_(self.lora_b.weight)

        def forward(self, x):
            return self.base(x) + self.lora_b(self.lora_a(x)) * 2.0

    for p in model.parameters():
        p.requires_grad_(False)
    count = 0
    for _, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            dims = features(child) if child_name in targets else None
            if dims:
                setattr(module, child_name, LoraLinear(child, *dims))
                count += rank * sum(dims)
    return count


def measure(spec: dict) -> dict:
    torch.manual_seed(0)
    kind = spec["kind"]
    if kind == "cnn":
        model = build_cnn(spec["arch"], spec.get("num_classes", 1000), spec.get("cifar_stem", False))
        size, ch = spec["image_size"], spec.get("channels", 3)
    else:
        model = build_transformer(spec)
        if not spec.get("dropout", True):  # a GPU keeps 1-byte masks, the CPU fp32 ones: measure without
            for module in model.modules():
                if isinstance(module, nn.Dropout):
                    module.p = 0.0
    model.train()
    params = sum(p.numel() for p in model.parameters())
    adapters = add_lora(model, tuple(spec["lora_targets"]), spec.get("lora_rank", 8)) if spec.get("lora") else 0
    rows = []
    for batch in spec["batches"]:
        if kind == "cnn":
            inputs = {"x": torch.randn(batch, ch, size, size)}
            labels = torch.randint(0, 10, (batch,))

            def run_loss():
                return nn.functional.cross_entropy(model(inputs["x"]), labels)
        elif spec.get("image_size"):  # ViT from transformers: pixels in, 1000 classes
            size = spec["image_size"]
            inputs = {"pixel_values": torch.randn(batch, 3, size, size)}
            labels = torch.randint(0, 1000, (batch,))

            def run_loss():
                return model(**inputs, labels=labels).loss
        else:
            seq = spec["seq"]
            ids = torch.randint(0, spec["config"]["vocab_size"], (batch, seq))
            inputs = {"input_ids": ids}
            labels = ids if spec["task"] == "lm" else torch.randint(0, 2, (batch,))

            def run_loss():
                return model(**inputs, labels=labels).loss
        row = {"batch": batch, "saved_bytes": saved_bytes(model, run_loss)}
        if spec.get("inference", True) and not spec.get("lora"):
            if kind != "cnn" and spec["task"] == "lm":
                # generation's first step: the last token's scores; the KV cache is its own item
                inputs = dict(inputs, logits_to_keep=1, use_cache=False)
            row["inference_peak_bytes"] = inference_peak_bytes(model, inputs)
        rows.append(row)
    return {"name": spec["name"], "params": params, "lora_adapters": adapters, "rows": rows,
            "torch": torch.__version__}


def main() -> int:
    specs = json.loads(open(sys.argv[1], encoding="utf-8").read())
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    results = [measure(s) for s in specs]
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
