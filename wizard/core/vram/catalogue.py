"""The model catalogue (resources/models.json): names, parameter counts and architectures.

Why a module of its own: the page's model list, the CLI's ``--model`` and the course workloads
look models up by id, display name, Hub id or alias; a size typed by a person ("7B") becomes a
custom model here, so the estimator only ever sees a :class:`ModelSpec`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wizard.core.base.resources import load_json
from wizard.core.vram.inputs import ParamCountError, UnknownModelError, parse_param_count
from wizard.core.vram.units import format_params

DECODER_FAMILIES = frozenset({"llama", "mistral", "qwen2", "gpt2"})
SWIGLU_FAMILIES = frozenset({"llama", "mistral", "qwen2"})
MHA_FAMILIES = frozenset({"bert", "distilbert", "gpt2", "vit"})
TRANSFORMER_FAMILIES = DECODER_FAMILIES | MHA_FAMILIES


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
    # BERT/DistilBERT ...ForSequenceClassification head (transformers' default num_labels 2);
    # 0: the bare encoder
    num_labels: int = 0

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
    # measured under no_grad (peak live activations); None: the training figure's rule-of-thumb half
    activation_inference_mib_per_sample_fp32: float | None = None
    activation_measured: bool = False  # True: measured with autograd (tests/vram_measure.py)
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
        activation_inference_mib_per_sample_fp32=entry.get("activation_inference_mib_per_sample_fp32"),
        activation_measured=bool(entry.get("activation_measured", False)),
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
