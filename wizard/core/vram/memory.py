"""Architecture arithmetic: parameters by part, and the bytes of weights, training state,
KV cache and activations.

Why a module of its own: these are the formulas the published figures check
(tests/unit/test_vram_reference.py) — each one small, named for what it counts, and free of the
choices (mode, defaults, notes) that :func:`wizard.core.vram.estimate.estimate` makes on top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wizard.core.vram.catalogue import SWIGLU_FAMILIES, TRANSFORMER_FAMILIES, Architecture, ModelSpec
from wizard.core.vram.inputs import OPTIMIZERS, TRAINING_ACCOUNTING, VramInputError, check_choice
from wizard.core.vram.precisions import Precision, get_precision
from wizard.core.vram.units import GIB

# bench-vram.md §3.4: "CUDA-context reserve (0.3–1 GiB; the asmirnov page says up to 2 GiB)".
# We take the top of that range because cuBLAS/cuDNN handles and workspaces are created on first
# use, on top of the bare context; a student told "batch 48" who then runs out of memory is worse
# off than one told "batch 40".
CUDA_CONTEXT_RESERVE_BYTES = 1 * GIB

# When the architecture is unknown, LoRA adapters are assumed to be this share of the model.
LORA_UNKNOWN_FRACTION = 0.01

# Optimizer state in bytes per trained parameter (HF model_memory_anatomy.md: AdamW 8,
# 8-bit AdamW 2, SGD with momentum 4).
OPTIMIZER_BYTES = {"adamw": 8, "adamw8bit": 2, "sgd_momentum": 4, "sgd": 0}


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
        """Embeddings plus the head (an untied LM head or a classifier): what bitsandbytes/GPTQ keep in 16-bit."""
        return self.embeddings + self.head


def _mha_layer_params(h: int, ffn: int) -> int:
    # BERT, GPT-2 and ViT layers: Q, K, V, O with biases, two norms, a 2-layer MLP.
    return 4 * (h * h + h) + 4 * h + (h * ffn + ffn) + (ffn * h + h)


def _classifier_head_params(arch: Architecture) -> int:
    """BertForSequenceClassification: Linear(h, labels) on the pooler; DistilBert's adds pre_classifier."""
    h, n = arch.hidden_size, arch.num_labels
    if not n:
        return 0
    pre = (h * h + h) if arch.family == "distilbert" else 0
    return pre + h * n + n


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
        return ParamBreakdown(emb, _mha_layer_params(h, ffn), L, final, _classifier_head_params(arch))
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
    opt = check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")
    acct = check_choice(accounting, TRAINING_ACCOUNTING, "vram.error.unknown_accounting")
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


# Tensors of the MLP's width (intermediate_size) that autograd keeps per token, measured
# (tests/vram_measure.py, torch 2.13): nn.GELU / erf GELU keeps its input and the second linear's
# input (2); GPT-2's "gelu_new" is written out in Python ops (x³, tanh, products), each keeping
# its inputs (5); SwiGLU keeps gate, SiLU output, up and their product (4, Korthikanti-style).
MLP_SAVED_FFN = {"gpt2": 5, "llama": 4, "mistral": 4, "qwen2": 4}
MLP_SAVED_FFN_DEFAULT = 2
# Families whose stock configs train with dropout (0.1): BERT, DistilBERT, GPT-2. A GPU keeps a
# 1-byte mask per element for each dropout (torch's fused dropout); Llama/Qwen/Mistral and
# torchvision's ViT default to no dropout.
DROPOUT_FAMILIES = frozenset({"bert", "distilbert", "gpt2"})


def transformer_layer_activation_bytes(arch: Architecture, seq: int, batch: int,
                                       efficient_attention: bool = True, elem_bytes: int = 2,
                                       dropout: bool = True, frozen_base: bool = False,
                                       lora_targets: str = "qv") -> int:
    """Bytes one layer keeps for backward: values measured per op, masks after Korthikanti et al.

    Values per token (each ``elem_bytes``; counted from what autograd saves in transformers'
    BERT/GPT-2 layers, tests/vram_measure.py): the QKV input, Q, K, V, the attention output and
    its reshaped copy that the output projection keeps, the two norms' inputs, the MLP's input
    and ``MLP_SAVED_FFN`` tensors of the MLP width. With a frozen base (LoRA on the attention
    projections) the frozen linears that carry no adapter keep no input: the output projection's,
    the MLP's and the down projection's. Dropout masks: one byte per element, twice per layer
    (a rule of thumb for GPUs: torch's CPU dropout keeps fp32 masks instead). Without an
    efficient attention kernel the seq × seq scores add 5·heads·seq bytes per token (Korthikanti).
    """
    h, ffn = arch.hidden_size, arch.intermediate_size
    q_out, kv_out = arch.num_heads * arch.head_dim, arch.num_kv_heads * arch.head_dim
    m = MLP_SAVED_FFN.get(arch.family, MLP_SAVED_FFN_DEFAULT)
    attention = h + 2 * q_out + 2 * kv_out + q_out  # QKV input, Q, K, V, output, out-proj input
    mlp = h + m * ffn
    if frozen_base and lora_targets == "qv":
        attention -= q_out
        mlp -= h + ffn
    values = attention + 2 * h + mlp
    masks = 2 * h if dropout and arch.family in DROPOUT_FAMILIES else 0
    total = seq * batch * (values * elem_bytes + masks)
    if not efficient_attention:
        total += 5 * arch.num_heads * seq * seq * batch
    return total


def transformer_inference_peak_bytes(arch: Architecture, seq: int, batch: int, elem_bytes: int = 2) -> int:
    """The most activation bytes alive at once in one layer without autograd (measured: the MLP's
    intermediate tensors and a few hidden-size ones; GPT-2's Python GELU keeps more alive)."""
    h, ffn = arch.hidden_size, arch.intermediate_size
    m = MLP_SAVED_FFN.get(arch.family, MLP_SAVED_FFN_DEFAULT)
    return seq * batch * (m * ffn + 3 * h) * elem_bytes


def usable_vram_bytes(vram_total_bytes: int, vram_used_bytes: int = 0,
                      context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> int:
    """Total − already in use − CUDA context reserve (never below zero)."""
    return max(0, int(vram_total_bytes) - int(vram_used_bytes) - int(context_reserve_bytes))
