"""VRAM arithmetic: how much GPU memory a model needs, itemised, and whether it fits.

Why a module of its own: the course teaches one rule (fp16 ≈ 2 bytes per parameter, "24 GB ≈
12B parameters") and students then run out of memory in training, because gradients, optimizer
state and activations come on top. The estimator counts each part separately so the VRAM page
can stack them against the usable memory, and every number it uses is written out as a sentence
(:attr:`Estimate.assumptions`) so a student can see why.

Units: everything is bytes internally. Memory cards report GiB (2**30 bytes; nvidia-smi prints
MiB), the course's rule speaks of GB (10**9 bytes); :func:`units_explanation` says so once.

Accounting modes, each matching a published figure (tests/unit/test_vram_reference.py):

- weights only: params × bytes per weight (fp32 4, fp16/bf16 2, int8 1, int4 0.5);
- training with Adam: 16 bytes/param in fp32 (4 weights + 4 gradients + 8 Adam moments);
  mixed precision as Hugging Face counts it, 18 bytes/param (6 weights: fp32 + 16-bit copy,
  4 fp32 gradients, 8 Adam), or as the ZeRO paper counts it, 16 bytes/param (2 + 2 + 12);
- ``accelerate estimate-memory`` (:func:`accelerate_estimate`): AutoModel without LM head,
  1024-based sizes labelled "MB"/"GB", training = the peak of its four phases;
- the serving rule of thumb (:func:`serving_rule_bytes`): weights × 1.2.

Only :func:`estimate` adds what the others leave out: KV cache, activations, an allocator
overhead, and (in :func:`usable_vram_bytes`) the CUDA context reserve.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, Overflow
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterable

from wizard.core.base.i18n import t
from wizard.core.base.resources import load_json

SCHEMA = "gpu-setup-wizard/vram"
SCHEMA_VERSION = "1.0"

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
GB = 10**9

# bench-vram.md §3.4: "CUDA-context reserve (0.3–1 GiB; the asmirnov page says up to 2 GiB)".
# We take the top of that range because cuBLAS/cuDNN handles and workspaces are created on first
# use, on top of the bare context; a student told "batch 48" who then runs out of memory is worse
# off than one told "batch 40".
CUDA_CONTEXT_RESERVE_BYTES = 1 * GIB

# Share of the memory that is allocated and freed on every step (activations, KV cache,
# gradients) added for the caching allocator's fragmentation and library workspaces. The
# published "× 1.2" serving rule covers this and the activations together; we count activations
# separately, so a smaller margin on the moving part only.
OVERHEAD_FRACTION = 0.10

# When the architecture is unknown, LoRA adapters are assumed to be this share of the model.
LORA_UNKNOWN_FRACTION = 0.01

MAX_PARAMS = 10 * 10**12  # 10T: more than any single model; a bigger number is a unit mistake
MAX_BATCH = 65536
MAX_CONTEXT = 1 << 21
MAX_IMAGE_SIZE = 8192
MAX_LORA_RANK = 4096

ITEM_KEYS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
MODES = ("inference", "train", "lora", "qlora")
OPTIMIZERS = ("adamw", "adamw8bit", "sgd_momentum", "sgd")
TRAINING_ACCOUNTING = ("hf", "zero")
LORA_TARGETS = ("qv", "all_linear")

# Optimizer state in bytes per trained parameter (HF model_memory_anatomy.md: AdamW 8,
# 8-bit AdamW 2, SGD with momentum 4).
OPTIMIZER_BYTES = {"adamw": 8, "adamw8bit": 2, "sgd_momentum": 4, "sgd": 0}

DECODER_FAMILIES = frozenset({"llama", "mistral", "qwen2", "gpt2"})
SWIGLU_FAMILIES = frozenset({"llama", "mistral", "qwen2"})
MHA_FAMILIES = frozenset({"bert", "distilbert", "gpt2", "vit"})
TRANSFORMER_FAMILIES = DECODER_FAMILIES | MHA_FAMILIES


# --------------------------------------------------------------------------------------------
# Errors: a ValueError whose message is already in the student's language.
# --------------------------------------------------------------------------------------------

class VramInputError(ValueError):
    """Bad input to the estimator. ``key``/``params`` name the i18n message."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(t(key, **params))

    def message(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.params)


class ParamCountError(VramInputError):
    """A parameter count that cannot be read, is not positive, or is absurdly large."""


class UnknownModelError(VramInputError):
    """A model name that is neither in the catalogue nor a parameter count."""


# --------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------

def format_gib(n_bytes: float, digits: int = 2) -> str:
    """Bytes as GiB, the unit memory cards report: ``format_gib(2**31) == '2.00 GiB'``."""
    return f"{n_bytes / GIB:.{digits}f} GiB"


def format_gb(n_bytes: float, digits: int = 2) -> str:
    """Bytes as decimal GB, the unit of the course's rule of thumb."""
    return f"{n_bytes / GB:.{digits}f} GB"


def format_params(n: int) -> str:
    """A parameter count for people: 6738415616 → '6.74B', 354823168 → '355M'."""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if n >= size:
            value = n / size
            text = f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            return text + suffix
    return str(n)


def units_explanation(lang: str | None = None) -> str:
    """The GB-versus-GiB explanation, shown once per page or command."""
    return t("vram.units.explanation", lang)


def mib_to_bytes(mib: float) -> int:
    """nvidia-smi/NVML MiB (GpuInfo.memory_total_mib) to bytes."""
    return int(round(mib * MIB))


def vram_from_gpu(gpu: Any) -> tuple[int | None, int]:
    """(total bytes or None, bytes in use) from a detected GpuInfo; n/a values give None / 0."""
    total = getattr(gpu, "memory_total_mib", None)
    used = getattr(gpu, "memory_used_mib", None)
    total_b = mib_to_bytes(total) if total else None
    used_b = mib_to_bytes(used) if used and total_b else 0
    return total_b, min(used_b, total_b or 0)


def item_label(key: str, lang: str | None = None) -> str:
    """The legend text of an item ("weights" → "Weights" / "가중치")."""
    return t(f"vram.item.{key}", lang)


# --------------------------------------------------------------------------------------------
# Precisions
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Precision:
    """How the weights are stored. ``bits_per_weight`` includes a format's scales and zeros."""

    key: str
    bits_per_weight: float
    trainable: bool = False  # full training possible (fp32, fp16, bf16)
    quantized: bool = False
    # bitsandbytes, GPTQ and AWQ quantise the nn.Linear layers only; the embeddings and the
    # LM head stay in 16-bit. GGUF files quantise every tensor, so their average is uniform.
    keeps_embeddings_16bit: bool = False
    approximate: bool = False
    source: str = ""
    short: str = ""  # the format's technical name inside sentences ("fp16", "NF4")

    @property
    def bytes_per_param(self) -> float:
        return self.bits_per_weight / 8

    def label(self, lang: str | None = None) -> str:
        return t(f"vram.precision.{self.key}", lang)


PRECISIONS: dict[str, Precision] = {
    p.key: p
    for p in (
        Precision("fp32", 32, trainable=True, source="4 bytes per weight", short="fp32"),
        Precision("fp16", 16, trainable=True, source="2 bytes per weight", short="fp16"),
        Precision("bf16", 16, trainable=True, source="2 bytes per weight", short="bf16"),
        Precision("int8", 8, quantized=True, short="int8",
                  source="1 byte per weight (accelerate, vram-reference.json)"),
        Precision("int4", 4, quantized=True, short="int4",
                  source="0.5 byte per weight (accelerate, vram-reference.json)"),
        # QLoRA paper (Dettmers et al. 2023, arXiv:2305.14314) §3 Double Quantization: the
        # constants cost 32/64 = 0.5 bit per weight, double quantised 8/64 + 32/(64·256) = 0.127.
        Precision("nf4", 4 + 8 / 64 + 32 / (64 * 256), quantized=True, keeps_embeddings_16bit=True,
                  source="bitsandbytes NF4 with double quantization: 4 + 0.127 bits (QLoRA paper §3)", short="NF4"),
        # GPTQ/AutoGPTQ packing, group size 128: a 16-bit scale and a 4-bit zero per group.
        Precision("gptq4", 4 + (16 + 4) / 128, quantized=True, keeps_embeddings_16bit=True, approximate=True,
                  source="GPTQ 4-bit, group size 128: 4 + (16 + 4)/128 bits (format arithmetic)", short="GPTQ 4-bit"),
        # llama.cpp ggml-quants.h: block_q4_0 = fp16 scale + 16 bytes per 32 weights = 4.5 bits;
        # block_q8_0 = fp16 scale + 32 bytes per 32 weights = 8.5 bits.
        Precision("q4_0", 4.5, quantized=True, short="Q4_0",
                  source="GGUF Q4_0: 18 bytes per block of 32 (llama.cpp ggml-quants.h)"),
        # llama.cpp examples/quantize/README.md, Llama 2 7B: Q4_K_M 4.84 bits per weight (13B 4.83, 70B 4.80).
        Precision("q4_k_m", 4.84, quantized=True, approximate=True,
                  short="Q4_K_M",
                  source="GGUF Q4_K_M: 4.84 bits per weight for Llama 2 7B (llama.cpp examples/quantize/README.md)"),
        Precision("q8_0", 8.5, quantized=True, short="Q8_0",
                  source="GGUF Q8_0: 34 bytes per block of 32 (llama.cpp ggml-quants.h)"),
    )
}
FOUR_BIT_PRECISIONS = frozenset({"int4", "nf4", "gptq4", "q4_0", "q4_k_m"})


def get_precision(key: str) -> Precision:
    norm = (key or "").strip().lower().replace("-", "_")
    aliases = {"float32": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
               "4bit": "nf4", "8bit": "int8", "q4_k": "q4_k_m"}
    norm = aliases.get(norm, norm)
    if norm not in PRECISIONS:
        raise VramInputError("vram.error.unknown_precision", name=key, choices=", ".join(PRECISIONS))
    return PRECISIONS[norm]


# --------------------------------------------------------------------------------------------
# The catalogue (resources/models.json)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Architecture:
    """The numbers the KV cache, activation and LoRA estimates need (config.json names)."""

    family: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int = 0
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    max_position_embeddings: int | None = None
    type_vocab_size: int = 0
    pooler: bool = False
    patch_size: int | None = None
    num_classes: int | None = None

    @property
    def is_decoder(self) -> bool:
        return self.family in DECODER_FAMILIES

    @property
    def swiglu(self) -> bool:
        return self.family in SWIGLU_FAMILIES


@dataclass(frozen=True)
class AccelerateInfo:
    """What ``accelerate estimate-memory`` counts: AutoModel (no LM head) plus buffers."""

    automodel_params: int
    buffer_bytes_fp32: int = 0
    embeddings_buffer_bytes_fp32: int = 0  # buffers inside the embeddings module (BERT ids)


@dataclass(frozen=True)
class ModelSpec:
    """One model: catalogue entry or a custom parameter count (``kind == 'custom'``)."""

    id: str
    name: str
    params: int
    kind: str  # "llm" | "encoder" | "image" | "custom"
    task: str = "unknown"  # "lm" | "classification" | "unknown"
    params_exact: bool = True
    source: str = ""
    hf_id: str | None = None
    aliases: tuple[str, ...] = ()
    architecture: Architecture | None = None
    default_context: int | None = None
    image_size: int | None = None
    activation_mib_per_sample_fp32: float | None = None
    activation_reference_size: int | None = None
    accelerate: AccelerateInfo | None = None
    note: str | None = None

    @property
    def is_image(self) -> bool:
        return self.kind == "image"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "params": self.params, "params_exact": self.params_exact,
                "kind": self.kind, "source": self.source}


def _spec_from_json(entry: dict[str, Any]) -> ModelSpec:
    arch_doc = entry.get("architecture")
    arch = Architecture(**arch_doc) if arch_doc else None
    acc_doc = entry.get("accelerate")
    acc = None
    if acc_doc:
        acc = AccelerateInfo(automodel_params=int(acc_doc["automodel_params"]),
                             buffer_bytes_fp32=int(acc_doc.get("buffer_bytes_fp32", 0)),
                             embeddings_buffer_bytes_fp32=int(acc_doc.get("embeddings_buffer_bytes_fp32", 0)))
    return ModelSpec(
        id=entry["id"], name=entry["name"], params=int(entry["params"]), kind=entry["kind"],
        task=entry.get("task", "unknown"), params_exact=bool(entry.get("params_exact", True)),
        source=entry.get("params_source", ""), hf_id=entry.get("hf_id"),
        aliases=tuple(entry.get("aliases", ())), architecture=arch,
        default_context=entry.get("default_context"), image_size=entry.get("image_size"),
        activation_mib_per_sample_fp32=entry.get("activation_mib_per_sample_fp32"),
        activation_reference_size=entry.get("activation_reference_size"), accelerate=acc,
        note=entry.get("note"),
    )


@lru_cache(maxsize=1)
def _catalogue() -> tuple[ModelSpec, ...]:
    return tuple(_spec_from_json(e) for e in load_json("models.json")["models"])


def catalogue_models() -> list[ModelSpec]:
    """Every catalogue model, in the file's order (small CNNs first, big LLMs last)."""
    return list(_catalogue())


def _norm_name(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


@lru_cache(maxsize=1)
def _name_index() -> dict[str, ModelSpec]:
    index: dict[str, ModelSpec] = {}
    for spec in _catalogue():
        for name in (spec.id, spec.name, spec.hf_id, *spec.aliases):
            if name:
                index.setdefault(_norm_name(name), spec)
    return index


def find_model(name: str) -> ModelSpec:
    """A catalogue model by id, display name, Hub id or alias (case-insensitive)."""
    spec = _name_index().get(_norm_name(name or ""))
    if spec is None:
        raise UnknownModelError("vram.error.unknown_model", name=name)
    return spec


def custom_model(params: int | str) -> ModelSpec:
    """A model known only by its size: weights and training state, no KV cache/activations."""
    n = parse_param_count(params)
    return ModelSpec(id="custom", name=format_params(n), params=n, kind="custom")


def resolve_model(model: ModelSpec | str | int) -> ModelSpec:
    """A ModelSpec from a spec, a catalogue name, or a parameter count ("7B", 350_000_000)."""
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, str):
        spec = _name_index().get(_norm_name(model))
        if spec is not None:
            return spec
        try:
            return custom_model(model)
        except ParamCountError:
            raise UnknownModelError("vram.error.unknown_model", name=model) from None
    return custom_model(model)


# --------------------------------------------------------------------------------------------
# Parameter counts typed by a person
# --------------------------------------------------------------------------------------------

_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_NUMBER = re.compile(r"^(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(?P<suffix>[kmbgt]?)$")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def parse_param_count(text: str | int | float) -> int:
    """'7B' → 7_000_000_000, '350M', '1.5e9', '125,000,000', 1_500_000 → ints.

    Raises :class:`ParamCountError` (a ValueError with a translated message) for empty,
    unreadable ('7X'), zero or negative, fractional, or absurd (> 10T) input.
    """
    if isinstance(text, bool):
        raise ParamCountError("vram.error.param_unreadable", text=str(text))
    if isinstance(text, int):
        return _check_count(Decimal(text), str(text), exact=True)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise ParamCountError("vram.error.param_unreadable", text=str(text))
        return _check_count(Decimal(repr(text)), repr(text), exact=True)
    raw = str(text).strip()
    if not raw:
        raise ParamCountError("vram.error.param_empty")
    s = raw.lower().replace(" ", "").replace("_", "")
    for word in ("parameters", "params", "param"):
        if s.endswith(word):
            s = s[: -len(word)]
    negative = s.startswith("-")
    s = s.lstrip("+-")
    if "," in s:
        m = _THOUSANDS.match(s)
        if not m:
            raise ParamCountError("vram.error.param_unreadable", text=raw)
        s = m.group(0).replace(",", "") + s[m.end():]
    m = _NUMBER.match(s)
    if not m:
        raise ParamCountError("vram.error.param_unreadable", text=raw)
    try:
        value = Decimal(m.group("num")) * _SUFFIX[m.group("suffix")]
    except Overflow:  # "1e99999999999": an exponent beyond any model
        raise ParamCountError("vram.error.param_too_large", text=raw, limit=format_params(MAX_PARAMS)) from None
    except InvalidOperation:
        raise ParamCountError("vram.error.param_unreadable", text=raw) from None
    if negative and value != 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    # "1.3B" is approximate by nature: round. A bare number must already be whole.
    return _check_count(value, raw, exact=not m.group("suffix"))


def _check_count(value: Decimal, raw: str, exact: bool) -> int:
    if value <= 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    if value > MAX_PARAMS:
        raise ParamCountError("vram.error.param_too_large", text=raw, limit=format_params(MAX_PARAMS))
    if exact and value != value.to_integral_value():
        raise ParamCountError("vram.error.param_fraction", text=raw)
    n = int(value.to_integral_value())
    if n <= 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    return n


# --------------------------------------------------------------------------------------------
# Architecture arithmetic
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ParamBreakdown:
    """Parameters by part; ``total`` must equal the catalogue's count."""

    embeddings: int  # token (+ position, type) embeddings, or ViT's patch embedding
    per_layer: int
    num_layers: int
    final: int  # final norm, pooler
    head: int  # untied LM head or classification head

    @property
    def total(self) -> int:
        return self.embeddings + self.per_layer * self.num_layers + self.final + self.head

    @property
    def vocab_params(self) -> int:
        """Token embedding plus an untied LM head: what bitsandbytes/GPTQ keep in 16-bit."""
        return self.embeddings + self.head


def _mha_layer_params(h: int, ffn: int) -> int:
    # BERT, GPT-2 and ViT layers: Q, K, V, O with biases, two norms, a 2-layer MLP.
    return 4 * (h * h + h) + 4 * h + (h * ffn + ffn) + (ffn * h + h)


def parameter_breakdown(arch: Architecture) -> ParamBreakdown:
    h, ffn, L, V = arch.hidden_size, arch.intermediate_size, arch.num_layers, arch.vocab_size
    if arch.family in SWIGLU_FAMILIES:
        q_out, kv_out = arch.num_heads * arch.head_dim, arch.num_kv_heads * arch.head_dim
        attn = h * q_out + 2 * h * kv_out + q_out * h
        if arch.qkv_bias:
            attn += q_out + 2 * kv_out
        per_layer = attn + 3 * h * ffn + 2 * h
        return ParamBreakdown(V * h, per_layer, L, h, 0 if arch.tie_word_embeddings else V * h)
    if arch.family == "gpt2":
        npos = arch.max_position_embeddings or 0
        return ParamBreakdown(V * h + npos * h, _mha_layer_params(h, ffn), L, 2 * h, 0)
    if arch.family in ("bert", "distilbert"):
        npos = arch.max_position_embeddings or 0
        emb = V * h + npos * h + arch.type_vocab_size * h + 2 * h
        final = (h * h + h) if arch.pooler else 0
        return ParamBreakdown(emb, _mha_layer_params(h, ffn), L, final, 0)
    if arch.family == "vit":
        p = arch.patch_size or 16
        # conv patch projection and class token; the position embedding depends on the image
        # size (224 px → 197 positions), so model_parameter_count adds it.
        return ParamBreakdown(3 * p * p * h + h + h, _mha_layer_params(h, ffn), L, 2 * h,
                              h * (arch.num_classes or 1000) + (arch.num_classes or 1000))
    raise ValueError(f"no parameter formula for family {arch.family!r}")


def model_parameter_count(spec: ModelSpec) -> int | None:
    """Parameters recomputed from the architecture (None for CNNs and custom sizes)."""
    if spec.architecture is None:
        return None
    b = parameter_breakdown(spec.architecture)
    if spec.architecture.family == "vit":
        p = spec.architecture.patch_size or 16
        positions = (spec.image_size or 224) // p
        return b.total + (positions * positions + 1) * spec.architecture.hidden_size
    return b.total


def kv_cache_bytes(arch: Architecture, context: int, batch: int = 1, bytes_per_elem: int = 2) -> int:
    """2 (K and V) × layers × KV heads × head size × tokens × batch × bytes (bench-vram.md §3.3)."""
    return 2 * arch.num_layers * arch.num_kv_heads * arch.head_dim * context * batch * bytes_per_elem


def weights_bytes(params: int, precision: str | Precision, arch: Architecture | None = None) -> int:
    """Bytes of the weights; 16-bit embeddings and LM head for bitsandbytes/GPTQ formats."""
    prec = precision if isinstance(precision, Precision) else get_precision(precision)
    if prec.keeps_embeddings_16bit and arch is not None and arch.vocab_size:
        vocab = parameter_breakdown(arch).vocab_params
        return math.ceil((params - vocab) * prec.bytes_per_param) + vocab * 2
    return math.ceil(params * prec.bytes_per_param)


def serving_rule_bytes(params: int, precision: str | Precision) -> int:
    """The serving rule of thumb, weights × 1.2 (Substratus; EleutherAI "Transformer Math 101")."""
    prec = precision if isinstance(precision, Precision) else get_precision(precision)
    return math.ceil(params * prec.bytes_per_param * 1.2)


def training_state_bytes(params: int, precision: str = "fp32", optimizer: str = "adamw",
                         accounting: str = "hf") -> tuple[int, int, int]:
    """(weights, gradients, optimizer) bytes for full training, activations excluded.

    fp32: 4 + 4 + optimizer. Mixed precision (fp16/bf16), ``accounting='hf'``: 6 (fp32 weights
    and a 16-bit copy) + 4 (fp32 gradients) + optimizer = 18 with AdamW. ``accounting='zero'``:
    2 (16-bit weights) + 2 (16-bit gradients) + 4 (fp32 master copy) + optimizer = 16 with Adam.
    """
    prec = get_precision(precision)
    if not prec.trainable:
        raise VramInputError("vram.error.train_needs_float", precision=prec.key)
    opt = _check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")
    acct = _check_choice(accounting, TRAINING_ACCOUNTING, "vram.error.unknown_accounting")
    state = OPTIMIZER_BYTES[opt]
    if prec.key == "fp32":
        return 4 * params, 4 * params, state * params
    if acct == "zero":
        return 2 * params, 2 * params, (4 + state) * params
    return 6 * params, 4 * params, state * params


def lora_adapter_params(spec: ModelSpec, rank: int = 16, targets: str = "qv") -> int | None:
    """Trainable LoRA parameters: rank × (d_in + d_out) for each adapted matrix, every layer.

    'qv' is PEFT's default for Llama-style models (q_proj, v_proj); 'all_linear' adapts every
    linear layer of the blocks, as the QLoRA paper does. None when the architecture is unknown.
    """
    arch = spec.architecture
    if arch is None or arch.family not in TRANSFORMER_FAMILIES:
        return None
    h, ffn = arch.hidden_size, arch.intermediate_size
    if arch.family in SWIGLU_FAMILIES:
        q_out, kv_out = arch.num_heads * arch.head_dim, arch.num_kv_heads * arch.head_dim
        qv = (h + q_out) + (h + kv_out)
        every = (h + q_out) + 2 * (h + kv_out) + (q_out + h) + 2 * (h + ffn) + (ffn + h)
    else:
        qv = 2 * (h + h)
        every = 4 * (h + h) + (h + ffn) + (ffn + h)
    return rank * arch.num_layers * (qv if targets == "qv" else every)


def transformer_layer_activation_bytes(arch: Architecture, seq: int, batch: int,
                                       efficient_attention: bool = True) -> int:
    """Activations one layer keeps for backward, at 16-bit, after Korthikanti et al. (2022).

    Per token: attention 11h, two norms 4h, MLP 3h + 4·ffn (GELU, = 19h when ffn = 4h, so 34h
    in all, the formula bench-vram.md quotes) or 2h + 8·ffn (SwiGLU: gate, up, product);
    plus 5·heads·seq per token when attention materialises the seq × seq scores.
    """
    h, ffn = arch.hidden_size, arch.intermediate_size
    mlp = (2 * h + 8 * ffn) if arch.swiglu else (3 * h + 4 * ffn)
    total = seq * batch * (11 * h + 4 * h + mlp)
    if not efficient_attention:
        total += 5 * arch.num_heads * seq * seq * batch
    return total


# --------------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Note:
    """One assumption, as an i18n key and its parameters (translated on demand)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.params)


def usable_vram_bytes(vram_total_bytes: int, vram_used_bytes: int = 0,
                      context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> int:
    """Total − already in use − CUDA context reserve (never below zero)."""
    return max(0, int(vram_total_bytes) - int(vram_used_bytes) - int(context_reserve_bytes))


@dataclass
class Estimate:
    """Itemised memory for one model and setting; compare ``total_bytes`` with ``usable_bytes``."""

    model: ModelSpec
    mode: str
    precision: str
    base_precision: str
    batch: int
    context: int | None
    image_size: int | None
    items: dict[str, int]
    trainable_params: int
    notes: list[Note]
    vram_total_bytes: int | None = None
    vram_used_bytes: int = 0
    context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES

    @property
    def total_bytes(self) -> int:
        return sum(self.items.values())

    @property
    def usable_bytes(self) -> int | None:
        if self.vram_total_bytes is None:
            return None
        return usable_vram_bytes(self.vram_total_bytes, self.vram_used_bytes, self.context_reserve_bytes)

    @property
    def fits(self) -> bool | None:
        usable = self.usable_bytes
        return None if usable is None else self.total_bytes <= usable

    @property
    def headroom_bytes(self) -> int | None:
        usable = self.usable_bytes
        return None if usable is None else usable - self.total_bytes

    @property
    def assumptions(self) -> list[str]:
        """The assumptions as sentences in the current language."""
        return self.assumption_texts()

    def assumption_texts(self, lang: str | None = None) -> list[str]:
        return [n.text(lang) for n in self.notes]

    def item_label(self, key: str, lang: str | None = None) -> str:
        return item_label(key, lang)

    def to_json(self, lang: str | None = None, workloads: Iterable[Any] | None = None) -> dict[str, Any]:
        """The CLI's ``vram --json`` document; ``workloads`` are WorkloadJudgment objects."""
        return {
            "schema": f"{SCHEMA}@{SCHEMA_VERSION}",
            "model": self.model.to_json(),
            "mode": self.mode,
            "precision": self.precision,
            "base_precision": self.base_precision,
            "batch": self.batch,
            "context": self.context,
            "image_size": self.image_size,
            "trainable_params": self.trainable_params,
            "items": dict(self.items),
            "total_bytes": self.total_bytes,
            "usable_bytes": self.usable_bytes,
            "vram_total_bytes": self.vram_total_bytes,
            "vram_used_bytes": self.vram_used_bytes,
            "context_reserve_bytes": self.context_reserve_bytes,
            "fits": self.fits,
            "assumptions": self.assumption_texts(lang),
            "units_note": units_explanation(lang),
            "workloads": [w.to_json(lang) for w in (workloads or ())],
        }


def _check_choice(value: str, choices: Iterable[str], key: str) -> str:
    norm = (value or "").strip().lower().replace("-", "_")
    choices = tuple(choices)
    if norm not in choices:
        raise VramInputError(key, name=value, choices=", ".join(choices))
    return norm


def _check_int(value: Any, low: int, high: int, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise VramInputError(key, value=value, max=high)
    return value


def estimate(
    model: ModelSpec | str | int,
    *,
    mode: str = "inference",
    precision: str = "fp16",
    batch: int = 1,
    context: int | None = None,
    image_size: int | None = None,
    optimizer: str = "adamw",
    training_accounting: str = "hf",
    gradient_checkpointing: bool = False,
    efficient_attention: bool = True,
    lora_rank: int = 16,
    lora_targets: str = "qv",
    vram_total_bytes: int | None = None,
    vram_used_bytes: int = 0,
    context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES,
    overhead_fraction: float = OVERHEAD_FRACTION,
) -> Estimate:
    """Memory for ``model`` (catalogue name, ModelSpec or a size such as "7B") in ``mode``.

    mode: inference | train (full fine-tune) | lora | qlora. precision: the weights' format
    (see PRECISIONS); for lora/qlora it is the base model's, and qlora stores the base in NF4
    unless a 4-bit format is given. context: tokens (default: the model's default context);
    image_size: pixels per side for image models. vram_total_bytes/vram_used_bytes: the GPU,
    for ``usable_bytes`` and ``fits`` (None: no GPU known).
    """
    spec = resolve_model(model)
    mode = _check_choice(mode, MODES, "vram.error.unknown_mode")
    prec = get_precision(precision)
    optimizer = _check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")
    training_accounting = _check_choice(training_accounting, TRAINING_ACCOUNTING, "vram.error.unknown_accounting")
    lora_targets = _check_choice(lora_targets, LORA_TARGETS, "vram.error.unknown_lora_targets")
    batch = _check_int(batch, 1, MAX_BATCH, "vram.error.bad_batch")
    lora_rank = _check_int(lora_rank, 1, MAX_LORA_RANK, "vram.error.bad_lora_rank")
    if vram_total_bytes is not None:
        if isinstance(vram_total_bytes, bool) or not isinstance(vram_total_bytes, (int, float)) or vram_total_bytes < 0:
            raise VramInputError("vram.error.bad_vram", value=vram_total_bytes)
        vram_total_bytes = int(vram_total_bytes)
    if isinstance(vram_used_bytes, bool) or not isinstance(vram_used_bytes, (int, float)) or vram_used_bytes < 0 \
            or (vram_total_bytes is not None and vram_used_bytes > vram_total_bytes):
        raise VramInputError("vram.error.bad_vram_used", value=vram_used_bytes)
    vram_used_bytes = int(vram_used_bytes)
    if not 0 <= overhead_fraction <= 1:
        raise VramInputError("vram.error.bad_overhead", value=overhead_fraction)

    arch = spec.architecture
    notes: list[Note] = []

    # Sequence length / image size.
    if spec.is_image:
        size = image_size if image_size is not None else (spec.image_size or 224)
        image_size = _check_int(size, 8, MAX_IMAGE_SIZE, "vram.error.bad_image_size")
        context = None
    else:
        image_size = None
        if context is None:
            context = spec.default_context or 512
        context = _check_int(context, 1, MAX_CONTEXT, "vram.error.bad_context")
        if arch is not None and arch.max_position_embeddings and context > arch.max_position_embeddings:
            notes.append(Note("vram.assume.context_over_max",
                              {"context": context, "max": arch.max_position_embeddings}))

    # Which precision holds the frozen/served weights, and which one computes.
    base = prec
    if mode == "train" and not prec.trainable:
        raise VramInputError("vram.error.train_needs_float", precision=prec.key)
    if mode == "lora" and prec.key in FOUR_BIT_PRECISIONS:
        mode = "qlora"
    if mode == "qlora" and prec.key not in FOUR_BIT_PRECISIONS:
        base = PRECISIONS["nf4"]
        notes.append(Note("vram.assume.qlora_base", {"bits": f"{base.bits_per_weight:.3f}"}))
    compute_fp32 = (prec.key == "fp32") and mode != "qlora"
    act_factor = 2 if compute_fp32 else 1  # activations: 16-bit unless fp32
    elem_bytes = 4 if compute_fp32 else 2

    P = spec.params
    items = dict.fromkeys(ITEM_KEYS, 0)
    trainable = 0

    # ---- weights, gradients, optimizer
    if mode == "train":
        w, g, o = training_state_bytes(P, prec.key, optimizer, training_accounting)
        items["weights"], items["gradients"], items["optimizer"] = w, g, o
        trainable = P
        notes.append(_training_note(prec.key, training_accounting))
        notes.append(Note(f"vram.assume.optimizer.{optimizer}"))
    else:
        items["weights"] = weights_bytes(P, base, arch)
        notes.append(Note("vram.assume.weights", {"params": format_params(P), "precision": base.short,
                                                  "bytes": _fmt_num(base.bytes_per_param)}))
        if base.quantized:
            notes.append(Note("vram.assume.quant_bits", {"precision": base.short,
                                                         "bits": _fmt_num(base.bits_per_weight)}))
            if base.keeps_embeddings_16bit and arch is not None and arch.vocab_size:
                notes.append(Note("vram.assume.quant_embeddings_16bit",
                                  {"params": format_params(parameter_breakdown(arch).vocab_params)}))
        if mode in ("lora", "qlora"):
            adapters = lora_adapter_params(spec, lora_rank, lora_targets)
            if adapters is None:
                adapters = max(1, round(P * LORA_UNKNOWN_FRACTION))
                notes.append(Note("vram.assume.lora_unknown", {"percent": _fmt_num(LORA_UNKNOWN_FRACTION * 100)}))
            trainable = adapters
            items["weights"] += 4 * adapters
            items["gradients"] = 4 * adapters
            items["optimizer"] = OPTIMIZER_BYTES[optimizer] * adapters
            notes.append(Note("vram.assume.lora", {"rank": lora_rank, "targets": t(f"vram.lora_targets.{lora_targets}"),
                                                   "adapters": format_params(adapters), "base": base.short}))
            notes.append(Note(f"vram.assume.optimizer.{optimizer}"))

    training = mode != "inference"

    # ---- activations and KV cache
    if spec.is_image and arch is None:
        per_sample = (spec.activation_mib_per_sample_fp32 or 0) * MIB
        ref = spec.activation_reference_size or spec.image_size or image_size
        scale = (image_size / ref) ** 2
        factor = (1.0 if training else 0.5) * (1.0 if compute_fp32 else 0.5)
        items["activations"] = math.ceil(per_sample * scale * batch * factor)
        notes.append(Note("vram.assume.activations_image",
                          {"mib": _fmt_num(spec.activation_mib_per_sample_fp32 or 0), "ref": ref, "size": image_size,
                           "batch": batch}))
        if not compute_fp32:
            notes.append(Note("vram.assume.activations_half"))
        if not training:
            notes.append(Note("vram.assume.activations_image_inference"))
    elif arch is not None and arch.family in TRANSFORMER_FAMILIES:
        seq = context
        if arch.family == "vit":
            patches = image_size // (arch.patch_size or 16)
            seq = patches * patches + 1
        layer = transformer_layer_activation_bytes(arch, seq, batch, efficient_attention) * act_factor
        if training:
            if gradient_checkpointing:
                acts = arch.num_layers * 2 * seq * batch * arch.hidden_size * act_factor + layer
                notes.append(Note("vram.assume.activations_checkpointing"))
            else:
                acts = arch.num_layers * layer
            notes.append(Note("vram.assume.activations_transformer",
                              {"seq": seq, "batch": batch, "hidden": arch.hidden_size, "layers": arch.num_layers}))
            if spec.task == "lm" and arch.vocab_size:
                acts += seq * batch * arch.vocab_size * 8
                notes.append(Note("vram.assume.activations_logits", {"vocab": arch.vocab_size}))
        else:
            acts = layer
            notes.append(Note("vram.assume.activations_inference", {"seq": seq, "batch": batch}))
            if spec.task == "lm" and arch.vocab_size:
                acts += batch * arch.vocab_size * 4
        if efficient_attention:
            notes.append(Note("vram.assume.attention_efficient"))
        if compute_fp32:
            notes.append(Note("vram.assume.activations_fp32"))
        items["activations"] = acts
        if arch.is_decoder and not training:
            items["kv_cache"] = kv_cache_bytes(arch, context, batch, elem_bytes)
            notes.append(Note("vram.assume.kv_cache", {"layers": arch.num_layers, "kv_heads": arch.num_kv_heads,
                                                       "head_dim": arch.head_dim, "context": context,
                                                       "batch": batch, "bytes": elem_bytes}))
    else:
        notes.append(Note("vram.assume.activations_unknown"))
        if spec.kind == "custom" and not training:
            notes.append(Note("vram.assume.kv_unknown"))

    moving = items["activations"] + items["kv_cache"] + items["gradients"]
    items["overhead"] = math.ceil(moving * overhead_fraction)
    notes.append(Note("vram.assume.overhead", {"percent": _fmt_num(overhead_fraction * 100)}))
    if vram_total_bytes is not None:
        notes.append(Note("vram.assume.usable", {"total": format_gib(vram_total_bytes),
                                                 "used": format_gib(vram_used_bytes),
                                                 "reserve": format_gib(context_reserve_bytes)}))

    return Estimate(model=spec, mode=mode, precision=prec.key, base_precision=base.key, batch=batch,
                    context=context, image_size=image_size, items=items, trainable_params=trainable,
                    notes=notes, vram_total_bytes=vram_total_bytes, vram_used_bytes=vram_used_bytes,
                    context_reserve_bytes=int(context_reserve_bytes))


def _training_note(precision: str, accounting: str) -> Note:
    if precision == "fp32":
        return Note("vram.assume.train_fp32")
    return Note("vram.assume.train_mixed_zero" if accounting == "zero" else "vram.assume.train_mixed_hf")


def _fmt_num(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")


# --------------------------------------------------------------------------------------------
# The largest model that fits
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LargestModel:
    """The biggest parameter count whose weights (and training state) fit the usable VRAM.

    KV cache and activations come on top; they depend on context and batch. ``course_rule_params``
    is the course's rule for the same card: total VRAM / bytes per parameter, no reserve.
    """

    mode: str
    precision: str
    bytes_per_param: float
    usable_bytes: int
    params: int
    course_rule_params: int

    def text(self, lang: str | None = None) -> str:
        return t("vram.largest.row", lang, mode=t(f"vram.mode.{self.mode}", lang),
                 precision=t(f"vram.precision.{self.precision}", lang),
                 params=format_params(self.params), bytes=_fmt_num(self.bytes_per_param))

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"mode": self.mode, "precision": self.precision, "bytes_per_param": self.bytes_per_param,
                "usable_bytes": self.usable_bytes, "params": self.params,
                "course_rule_params": self.course_rule_params, "text": self.text(lang)}


def bytes_per_param_for(mode: str, precision: str, optimizer: str = "adamw",
                        training_accounting: str = "hf") -> float:
    """Bytes per parameter that do not depend on batch or context (weights + training state)."""
    mode = _check_choice(mode, MODES, "vram.error.unknown_mode")
    prec = get_precision(precision)
    if mode == "inference":
        return prec.bytes_per_param
    if mode == "train":
        return float(sum(training_state_bytes(1, prec.key, optimizer, training_accounting)))
    adapter = (4 + 4 + OPTIMIZER_BYTES[_check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")]) \
        * LORA_UNKNOWN_FRACTION
    if mode == "qlora" and prec.key not in FOUR_BIT_PRECISIONS:
        prec = PRECISIONS["nf4"]
    return prec.bytes_per_param + adapter


def largest_model(vram_total_bytes: int, vram_used_bytes: int = 0, *, mode: str = "inference",
                  precision: str = "fp16", optimizer: str = "adamw", training_accounting: str = "hf",
                  context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> LargestModel:
    """Largest model for this VRAM in ``mode`` at ``precision`` (weights and training state)."""
    if isinstance(vram_total_bytes, bool) or not isinstance(vram_total_bytes, (int, float)) or vram_total_bytes < 0:
        raise VramInputError("vram.error.bad_vram", value=vram_total_bytes)
    bpp = bytes_per_param_for(mode, precision, optimizer, training_accounting)
    usable = usable_vram_bytes(int(vram_total_bytes), vram_used_bytes, context_reserve_bytes)
    exact = Fraction(bpp)  # exact rational: float floor division can be one off
    return LargestModel(mode=_check_choice(mode, MODES, "vram.error.unknown_mode"),
                        precision=get_precision(precision).key, bytes_per_param=bpp,
                        usable_bytes=usable, params=math.floor(Fraction(usable) / exact),
                        course_rule_params=math.floor(Fraction(int(vram_total_bytes)) / exact))


def largest_model_table(vram_total_bytes: int, vram_used_bytes: int = 0, *,
                        context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> list[LargestModel]:
    """Inference at every precision, then full training, LoRA and QLoRA (the page's table)."""
    rows = [largest_model(vram_total_bytes, vram_used_bytes, mode="inference", precision=p,
                          context_reserve_bytes=context_reserve_bytes)
            for p in ("fp32", "fp16", "int8", "q8_0", "q4_k_m", "nf4", "int4")]
    rows += [largest_model(vram_total_bytes, vram_used_bytes, mode="train", precision=p,
                           context_reserve_bytes=context_reserve_bytes) for p in ("fp32", "fp16")]
    rows.append(largest_model(vram_total_bytes, vram_used_bytes, mode="lora", precision="fp16",
                              context_reserve_bytes=context_reserve_bytes))
    rows.append(largest_model(vram_total_bytes, vram_used_bytes, mode="qlora", precision="nf4",
                              context_reserve_bytes=context_reserve_bytes))
    return rows


def course_rule_params(vram_bytes: int, precision: str = "fp16") -> int:
    """The course's rule: VRAM / bytes per parameter ("24 GB ≈ 12B at fp16"), a rough upper bound."""
    return math.floor(Fraction(int(vram_bytes)) / Fraction(get_precision(precision).bytes_per_param))


# --------------------------------------------------------------------------------------------
# `accelerate estimate-memory`, reproduced (bench-vram.md §3.1)
# --------------------------------------------------------------------------------------------

ACCELERATE_DIVISORS = {"float32": 1, "float16": 2, "int8": 4, "int4": 8}


@dataclass(frozen=True)
class AccelerateEstimate:
    dtype: str
    total_bytes: float
    largest_layer_bytes: float
    training_bytes: float | None  # None where accelerate prints "N/A" (int8/int4)

    def strings(self) -> dict[str, str]:
        """The three cells as accelerate prints them."""
        return {"total": accelerate_size_string(self.total_bytes),
                "largest_layer": accelerate_size_string(self.largest_layer_bytes),
                "training_using_adam": "N/A" if self.training_bytes is None
                else accelerate_size_string(self.training_bytes)}


def accelerate_size_string(n_bytes: float) -> str:
    """accelerate's ``convert_bytes``: divide by 1024 until < 1024, round to 2, label "MB"/"GB"."""
    size = float(n_bytes)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if size < 1024.0:
            return f"{round(size, 2)} {unit}"
        size /= 1024.0
    return f"{round(size, 2)} PB"


def accelerate_estimate(model: ModelSpec | str, dtype: str, legacy: bool = False) -> AccelerateEstimate:
    """What ``accelerate estimate-memory`` prints for a catalogue model with accelerate data.

    Total = (params + buffers) in fp32 / {1, 2, 4, 8}. Training = the peak of accelerate's
    phases: 4× the fp32 size in float32, 2× in float16, N/A for int8/int4; ``legacy=True`` is
    the older release in the docs (4× the dtype size for every dtype, and the largest layer
    found among leaf modules, so BERT's word embeddings rather than its embeddings block).
    """
    spec = resolve_model(model)
    if spec.accelerate is None or spec.architecture is None:
        raise VramInputError("vram.error.no_accelerate_data", name=spec.name)
    if dtype not in ACCELERATE_DIVISORS:
        raise VramInputError("vram.error.unknown_precision", name=dtype, choices=", ".join(ACCELERATE_DIVISORS))
    acc, arch = spec.accelerate, spec.architecture
    div = ACCELERATE_DIVISORS[dtype]
    fp32_total = acc.automodel_params * 4 + acc.buffer_bytes_fp32
    total = fp32_total / div
    b = parameter_breakdown(arch)
    if arch.family in ("bert", "distilbert") and not legacy:
        embed = b.embeddings * 4 + acc.embeddings_buffer_bytes_fp32
    else:
        embed = arch.vocab_size * arch.hidden_size * 4  # the token embedding, a leaf module
    largest = max(embed, b.per_layer * 4) / div
    if legacy:
        training: float | None = 4 * total
    elif dtype == "float32":
        training = 4 * fp32_total
    elif dtype == "float16":
        training = 2 * fp32_total
    else:
        training = None
    return AccelerateEstimate(dtype=dtype, total_bytes=total, largest_layer_bytes=largest, training_bytes=training)
