"""VRAM arithmetic: how much GPU memory a model needs, itemised, and whether it fits.

Why a module of its own: the course teaches one rule (fp16 ≈ 2 bytes per parameter, "24 GB ≈
12B parameters") and students then run out of memory in training, because gradients, optimizer
state and activations come on top. :func:`estimate` counts each part separately so the VRAM page
can stack them against the usable memory, and every number it uses is written out as a sentence
(:meth:`Estimate.assumption_texts`) so a student can see why.

Units: everything is bytes internally (:mod:`wizard.core.vram.units` says GiB versus GB once).

Accounting modes, each matching a published figure (tests/unit/test_vram_reference.py):

- weights only: params × bytes per weight (fp32 4, fp16/bf16 2, int8 1, int4 0.5);
- training with Adam: 16 bytes/param in fp32 (4 weights + 4 gradients + 8 Adam moments);
  mixed precision as Hugging Face counts it, 18 bytes/param (6 weights: fp32 + 16-bit copy,
  4 fp32 gradients, 8 Adam), or as the ZeRO paper counts it, 16 bytes/param (2 + 2 + 12);
- ``accelerate estimate-memory`` (:mod:`wizard.core.vram.accelerate`): AutoModel without LM
  head, 1024-based sizes labelled "MB"/"GB", training = the peak of its four phases;
- the serving rule of thumb (:func:`wizard.core.vram.memory.serving_rule_bytes`): weights × 1.2.

Only :func:`estimate` adds what the others leave out: KV cache, activations, an allocator
overhead, and (in :func:`usable_vram_bytes`) the CUDA context reserve. The activations are
calibrated against measurement (tests/vram_measure.py, benchmarks/vram_calibration.py: the bytes
autograd saves for one training step in torch): each catalogue CNN's per-image figure is measured,
and the per-layer tensor count of the transformers was measured in BERT, DistilBERT, GPT-2 and ViT;
other families use that count as a rule of thumb (``Estimate.activation_basis`` says which).

The package's parts: inputs (what may be typed, and its errors), units, precisions, catalogue
(models.json), memory (the formulas), largest (the biggest model that fits), accelerate, and
workloads (the course's lessons judged). The names the CLI and the VRAM page use are imported
here as well, so ``wizard.core.vram.estimate`` stays the one module those faces need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from wizard.core.base.i18n import Message, msg, t
from wizard.core.vram.catalogue import TRANSFORMER_FAMILIES, Architecture, ModelSpec, resolve_model
from wizard.core.vram.inputs import (
    LORA_TARGETS,
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_IMAGE_SIZE,
    MAX_LORA_RANK,
    MODES,
    OPTIMIZERS,
    TRAINING_ACCOUNTING,
    VramInputError,
    check_choice,
    check_int,
)
from wizard.core.vram.memory import (
    CUDA_CONTEXT_RESERVE_BYTES,
    DROPOUT_FAMILIES,
    LORA_UNKNOWN_FRACTION,
    OPTIMIZER_BYTES,
    kv_cache_bytes,
    lora_adapter_params,
    parameter_breakdown,
    training_state_bytes,
    transformer_inference_peak_bytes,
    transformer_layer_activation_bytes,
    usable_vram_bytes,
    weights_bytes,
)
from wizard.core.vram.precisions import FOUR_BIT_PRECISIONS, PRECISIONS, Precision, get_precision
from wizard.core.vram.units import ITEM_KEYS, MIB, fmt_num, format_gib, format_params, item_label, units_explanation

# The names the CLI, the VRAM page and the report take from this module (see the docstring).
__all__ = ["OVERHEAD_FRACTION", "SCHEMA", "SCHEMA_VERSION", "Estimate", "Note", "estimate"]

SCHEMA = "gpu-setup-wizard/vram"
SCHEMA_VERSION = "1.0"

# Share of the memory that is allocated and freed on every step (activations, KV cache,
# gradients) added for the caching allocator's fragmentation and library workspaces. The
# published "× 1.2" serving rule covers this and the activations together; we count activations
# separately, so a smaller margin on the moving part only.
OVERHEAD_FRACTION = 0.10

# Transformer families whose per-layer activation count was measured with autograd
# (tests/vram_measure.py, within 25 %); the others use the same count as a rule of thumb.
MEASURED_FAMILIES = frozenset({"bert", "distilbert", "gpt2", "vit"})


# --------------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Note:
    """One assumption, as an i18n key and its parameters (translated on demand)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str | None) -> str:
        return t(self.key, lang, **{k: (v.text(lang) if isinstance(v, Message) else v) for k, v in self.params.items()})


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
    # the part of ``items["activations"]`` that autograd saves for backward (training) or the
    # live peak (inference): the figure tests/vram_measure.py compares with a measurement
    activations_saved_bytes: int = 0
    # where the activation figure comes from: "measured" (the catalogue's CNNs, and the layer count
    # measured in BERT/DistilBERT/GPT-2), "rule_of_thumb" (other families, unmeasured CNNs) or "none"
    activation_basis: str = "none"
    # the card ``vram_total_bytes`` is: its name, and whether it is a what-if (a card the student
    # picked or typed, Colab's T4 on a PC without a GPU) rather than this machine's own GPU
    gpu_name: str | None = None
    what_if: bool = False

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

    def assumption_texts(self, lang: str | None) -> list[str]:
        """The assumptions as sentences in ``lang``."""
        return [n.text(lang) for n in self.notes]

    def item_label(self, key: str, lang: str | None) -> str:
        return item_label(key, lang)

    def to_json(self, lang: str | None, workloads: Iterable[Any] | None = None) -> dict[str, Any]:
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
            "gpu_name": self.gpu_name,
            "what_if": self.what_if,
            "activation_basis": self.activation_basis,
            "assumptions": self.assumption_texts(lang),
            "units_note": units_explanation(lang),
            "workloads": [w.to_json(lang) for w in (workloads or ())],
        }


@dataclass(frozen=True)
class _Setting:
    """The validated inputs of one estimate, and the two choices that follow from them.

    ``base`` is the format the frozen or served weights are stored in (NF4 for QLoRA unless a
    4-bit format was given); ``compute_fp32`` says whether activations and the KV cache are
    held in fp32 (an fp32 model that is not QLoRA) or in 16-bit.
    """

    spec: ModelSpec
    mode: str
    precision: Precision
    base: Precision
    batch: int
    context: int | None
    image_size: int | None
    optimizer: str
    training_accounting: str
    lora_rank: int
    lora_targets: str
    dropout: bool = True

    @property
    def training(self) -> bool:
        return self.mode != "inference"

    @property
    def compute_fp32(self) -> bool:
        return self.precision.key == "fp32" and self.mode != "qlora"


def _checked_vram(vram_total_bytes: Any, vram_used_bytes: Any) -> tuple[int | None, int]:
    """The GPU's total (None: no GPU known) and in-use bytes as ints, or the error that names the bad one."""
    if vram_total_bytes is not None:
        if isinstance(vram_total_bytes, bool) or not isinstance(vram_total_bytes, (int, float)) or vram_total_bytes < 0:
            raise VramInputError("vram.error.bad_vram", value=vram_total_bytes)
        vram_total_bytes = int(vram_total_bytes)
    if isinstance(vram_used_bytes, bool) or not isinstance(vram_used_bytes, (int, float)) or vram_used_bytes < 0 \
            or (vram_total_bytes is not None and vram_used_bytes > vram_total_bytes):
        raise VramInputError("vram.error.bad_vram_used", value=vram_used_bytes)
    return vram_total_bytes, int(vram_used_bytes)


def _sequence_or_image_size(spec: ModelSpec, context: int | None, image_size: int | None,
                            notes: list[Note]) -> tuple[int | None, int | None]:
    """(context, image_size): image models get a pixel size and no context, the others a token context."""
    if spec.is_image:
        size = image_size if image_size is not None else (spec.image_size or 224)
        return None, check_int(size, 8, MAX_IMAGE_SIZE, "vram.error.bad_image_size")
    if context is None:
        context = spec.default_context or 512
    context = check_int(context, 1, MAX_CONTEXT, "vram.error.bad_context")
    arch = spec.architecture
    if arch is not None and arch.max_position_embeddings and context > arch.max_position_embeddings:
        notes.append(Note("vram.assume.context_over_max", {"context": context, "max": arch.max_position_embeddings}))
    return context, None


def _mode_and_storage(mode: str, prec: Precision, notes: list[Note]) -> tuple[str, Precision]:
    """(mode, base precision): LoRA on 4-bit weights is QLoRA, and QLoRA stores the base in NF4
    unless a 4-bit format was given; full training needs a float format."""
    base = prec
    if mode == "train" and not prec.trainable:
        raise VramInputError("vram.error.train_needs_float", precision=prec.key)
    if mode == "lora" and prec.key in FOUR_BIT_PRECISIONS:
        mode = "qlora"
    if mode == "qlora" and prec.key not in FOUR_BIT_PRECISIONS:
        base = PRECISIONS["nf4"]
        notes.append(Note("vram.assume.qlora_base", {"bits": f"{base.bits_per_weight:.3f}"}))
    return mode, base


def _full_training_state(s: _Setting, items: dict[str, int], notes: list[Note]) -> int:
    """Weights, gradients and optimizer state of a full fine-tune; every parameter is trained."""
    w, g, o = training_state_bytes(s.spec.params, s.precision.key, s.optimizer, s.training_accounting)
    items["weights"], items["gradients"], items["optimizer"] = w, g, o
    notes.append(_training_note(s.precision.key, s.training_accounting))
    notes.append(Note(f"vram.assume.optimizer.{s.optimizer}"))
    return s.spec.params


def _stored_weights(s: _Setting, items: dict[str, int], notes: list[Note]) -> None:
    """The frozen or served weights in their storage format (16-bit embeddings where the format keeps them)."""
    base, arch, params = s.base, s.spec.architecture, s.spec.params
    items["weights"] = weights_bytes(params, base, arch)
    notes.append(Note("vram.assume.weights", {"params": format_params(params), "precision": base.short,
                                              "bytes": fmt_num(base.bytes_per_param)}))
    if base.quantized:
        notes.append(Note("vram.assume.quant_bits", {"precision": base.short,
                                                     "bits": fmt_num(base.bits_per_weight)}))
        if base.keeps_embeddings_16bit and arch is not None and arch.vocab_size:
            notes.append(Note("vram.assume.quant_embeddings_16bit",
                              {"params": format_params(parameter_breakdown(arch).vocab_params)}))


def _lora_adapters(s: _Setting, items: dict[str, int], notes: list[Note]) -> int:
    """The adapters LoRA trains, in fp32 with their gradients and optimizer state; returns their count."""
    adapters = lora_adapter_params(s.spec, s.lora_rank, s.lora_targets)
    if adapters is None:
        adapters = max(1, round(s.spec.params * LORA_UNKNOWN_FRACTION))
        notes.append(Note("vram.assume.lora_unknown", {"percent": fmt_num(LORA_UNKNOWN_FRACTION * 100)}))
    items["weights"] += 4 * adapters
    items["gradients"] = 4 * adapters
    items["optimizer"] = OPTIMIZER_BYTES[s.optimizer] * adapters
    notes.append(Note("vram.assume.lora", {"rank": s.lora_rank, "targets": msg(f"vram.lora_targets.{s.lora_targets}"),
                                           "adapters": format_params(adapters), "base": s.base.short}))
    notes.append(Note(f"vram.assume.optimizer.{s.optimizer}"))
    return adapters


def _weights_and_training_state(s: _Setting, items: dict[str, int], notes: list[Note]) -> int:
    """Fill weights, gradients and optimizer; returns how many parameters are trained."""
    if s.mode == "train":
        return _full_training_state(s, items, notes)
    _stored_weights(s, items, notes)
    if s.mode in ("lora", "qlora"):
        return _lora_adapters(s, items, notes)
    return 0


def _image_activations(s: _Setting, notes: list[Note]) -> int:
    """A CNN's activations from the catalogue's MiB per sample, scaled by area and batch.

    Training: what autograd saves per image (measured for the catalogue's CNNs). Inference: the
    measured peak of live activations under no_grad where the catalogue has it, else half the
    training figure (a rule of thumb). 16-bit halves either (a rule of thumb: BatchNorm and the
    loss may keep fp32 copies under autocast).
    """
    spec = s.spec
    assert s.image_size is not None  # an image model's setting always has its size
    ref = spec.activation_reference_size or spec.image_size or s.image_size
    scale = (s.image_size / ref) ** 2
    measured_inference = spec.activation_inference_mib_per_sample_fp32
    if s.training:
        mib, factor = spec.activation_mib_per_sample_fp32 or 0, 1.0
    elif measured_inference is not None:
        mib, factor = measured_inference, 1.0
    else:
        mib, factor = spec.activation_mib_per_sample_fp32 or 0, 0.5
    if not s.compute_fp32:
        factor *= 0.5
    key = "vram.assume.activations_image_measured" if spec.activation_measured else "vram.assume.activations_image"
    if not s.training and measured_inference is not None:
        key = "vram.assume.activations_image_inference_measured"
    notes.append(Note(key, {"mib": fmt_num(mib), "ref": ref, "size": s.image_size, "batch": s.batch}))
    if ref != s.image_size:
        notes.append(Note("vram.assume.activations_image_scaled", {"ref": ref, "size": s.image_size}))
    if not s.compute_fp32:
        notes.append(Note("vram.assume.activations_half"))
    if not s.training and measured_inference is None:
        notes.append(Note("vram.assume.activations_image_inference"))
    return math.ceil(mib * MIB * scale * s.batch * factor)


def _transformer_sequence(s: _Setting, arch: Architecture) -> int:
    """Tokens per sample: the context, or for ViT the patches plus the class token."""
    if arch.family == "vit":
        assert s.image_size is not None  # a ViT's setting always has its image size
        patches = s.image_size // (arch.patch_size or 16)
        return patches * patches + 1
    assert s.context is not None  # a text model's setting always has its context
    return s.context


def _transformer_activations(s: _Setting, arch: Architecture, gradient_checkpointing: bool,
                             efficient_attention: bool, notes: list[Note]) -> tuple[int, int]:
    """(activations, the part autograd saves): every layer's saved tensors (or checkpoints plus one
    layer), or the peak of one layer when serving; for language models the log-probabilities the
    loss keeps and, at the start of backward, their gradient (not a saved tensor)."""
    seq, batch = _transformer_sequence(s, arch), s.batch
    elem = 4 if s.compute_fp32 else 2  # activations: 16-bit unless fp32
    frozen = s.mode in ("lora", "qlora")
    lm = s.spec.task == "lm" and bool(arch.vocab_size)
    if not s.training:
        acts = transformer_inference_peak_bytes(arch, seq, batch, elem)
        notes.append(Note("vram.assume.activations_inference_measured", {"seq": seq, "batch": batch}))
        if lm:
            acts += batch * arch.vocab_size * 4
        if s.compute_fp32:
            notes.append(Note("vram.assume.activations_fp32"))
        return acts, acts
    layer = transformer_layer_activation_bytes(arch, seq, batch, efficient_attention, elem, s.dropout,
                                               frozen, s.lora_targets)
    if gradient_checkpointing:
        acts = arch.num_layers * seq * batch * arch.hidden_size * elem + layer
        notes.append(Note("vram.assume.activations_checkpointing"))
    else:
        acts = arch.num_layers * layer
    notes.append(Note("vram.assume.activations_transformer_measured",
                      {"seq": seq, "batch": batch, "hidden": arch.hidden_size, "layers": arch.num_layers}))
    if frozen:
        notes.append(Note("vram.assume.activations_frozen_base" if s.lora_targets == "qv"
                          else "vram.assume.activations_frozen_base_all"))
    if s.dropout and arch.family in DROPOUT_FAMILIES:
        notes.append(Note("vram.assume.activations_dropout_masks"))
    saved = acts
    if lm:
        saved += seq * batch * arch.vocab_size * 4
        acts = saved + seq * batch * arch.vocab_size * 4
        notes.append(Note("vram.assume.activations_logits_measured", {"vocab": arch.vocab_size}))
    if efficient_attention:
        notes.append(Note("vram.assume.attention_efficient"))
    if s.compute_fp32:
        notes.append(Note("vram.assume.activations_fp32"))
    return acts, saved


def _decoder_kv_cache(s: _Setting, arch: Architecture, notes: list[Note]) -> int:
    """The KV cache a decoder fills while generating (none in training, none for encoders)."""
    if not arch.is_decoder or s.training:
        return 0
    elem_bytes = 4 if s.compute_fp32 else 2
    notes.append(Note("vram.assume.kv_cache", {"layers": arch.num_layers, "kv_heads": arch.num_kv_heads,
                                               "head_dim": arch.head_dim, "context": s.context,
                                               "batch": s.batch, "bytes": elem_bytes}))
    assert s.context is not None  # a decoder's setting always has its context
    return kv_cache_bytes(arch, s.context, s.batch, elem_bytes)


def _activations_and_kv_cache(s: _Setting, gradient_checkpointing: bool, efficient_attention: bool,
                              items: dict[str, int], notes: list[Note]) -> int:
    """Fill activations and KV cache by what is known of the model: a CNN's measurement, a
    transformer's architecture, or nothing (a custom size: weights and training state only).
    Returns the part of the activations that autograd saves (what tests/vram_measure.py measures)."""
    arch = s.spec.architecture
    if s.spec.is_image and arch is None:
        items["activations"] = _image_activations(s, notes)
        return items["activations"]
    elif arch is not None and arch.family in TRANSFORMER_FAMILIES:
        items["activations"], saved = _transformer_activations(s, arch, gradient_checkpointing,
                                                               efficient_attention, notes)
        items["kv_cache"] = _decoder_kv_cache(s, arch, notes)
        return saved
    else:
        notes.append(Note("vram.assume.activations_unknown"))
        if s.spec.kind == "custom" and not s.training:
            notes.append(Note("vram.assume.kv_unknown"))
    return 0


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
    dropout: bool = True,
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
    for ``usable_bytes`` and ``fits`` (None: no GPU known). dropout: the model trains with its
    stock dropout (BERT, DistilBERT, GPT-2: 0.1), whose masks cost a byte per element.
    """
    spec = resolve_model(model)
    mode = check_choice(mode, MODES, "vram.error.unknown_mode")
    prec = get_precision(precision)
    optimizer = check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")
    training_accounting = check_choice(training_accounting, TRAINING_ACCOUNTING, "vram.error.unknown_accounting")
    lora_targets = check_choice(lora_targets, LORA_TARGETS, "vram.error.unknown_lora_targets")
    batch = check_int(batch, 1, MAX_BATCH, "vram.error.bad_batch")
    lora_rank = check_int(lora_rank, 1, MAX_LORA_RANK, "vram.error.bad_lora_rank")
    vram_total_bytes, vram_used_bytes = _checked_vram(vram_total_bytes, vram_used_bytes)
    if not 0 <= overhead_fraction <= 1:
        raise VramInputError("vram.error.bad_overhead", value=overhead_fraction)

    notes: list[Note] = []
    context, image_size = _sequence_or_image_size(spec, context, image_size, notes)
    mode, base = _mode_and_storage(mode, prec, notes)
    setting = _Setting(spec=spec, mode=mode, precision=prec, base=base, batch=batch, context=context,
                       image_size=image_size, optimizer=optimizer, training_accounting=training_accounting,
                       lora_rank=lora_rank, lora_targets=lora_targets, dropout=bool(dropout))

    items = dict.fromkeys(ITEM_KEYS, 0)
    trainable = _weights_and_training_state(setting, items, notes)
    saved = _activations_and_kv_cache(setting, gradient_checkpointing, efficient_attention, items, notes)

    moving = items["activations"] + items["kv_cache"] + items["gradients"]
    items["overhead"] = math.ceil(moving * overhead_fraction)
    notes.append(Note("vram.assume.overhead", {"percent": fmt_num(overhead_fraction * 100)}))
    if vram_total_bytes is not None:
        notes.append(Note("vram.assume.usable", {"total": format_gib(vram_total_bytes),
                                                 "used": format_gib(vram_used_bytes),
                                                 "reserve": format_gib(context_reserve_bytes)}))

    return Estimate(model=spec, mode=mode, precision=prec.key, base_precision=base.key, batch=batch,
                    context=context, image_size=image_size, items=items, trainable_params=trainable,
                    notes=notes, vram_total_bytes=vram_total_bytes, vram_used_bytes=vram_used_bytes,
                    context_reserve_bytes=int(context_reserve_bytes), activations_saved_bytes=saved,
                    activation_basis=_activation_basis(spec))


def _activation_basis(spec: ModelSpec) -> str:
    """"measured", "rule_of_thumb" or "none": what the activation item of ``spec`` rests on."""
    arch = spec.architecture
    if spec.is_image and arch is None:
        return "measured" if spec.activation_measured else "rule_of_thumb"
    if arch is not None and arch.family in TRANSFORMER_FAMILIES:
        return "measured" if arch.family in MEASURED_FAMILIES else "rule_of_thumb"
    return "none"


def _training_note(precision: str, accounting: str) -> Note:
    if precision == "fp32":
        return Note("vram.assume.train_fp32")
    return Note("vram.assume.train_mixed_zero" if accounting == "zero" else "vram.assume.train_mixed_hf")
