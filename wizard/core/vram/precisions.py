"""Weight formats (fp32 … GGUF Q4_K_M) and how many bits each costs per weight.

Why a module of its own: every count in the package starts from "bytes per weight", and the
quantised formats carry scales and zeros that the plain rule (int4 = 0.5 byte) leaves out; each
figure names its source so a teaching assistant can check it.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.core.base.i18n import t
from wizard.core.vram.inputs import VramInputError


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

    def label(self, lang: str | None) -> str:
        return t(f"vram.precision.{self.key}", lang)


PRECISIONS: dict[str, Precision] = {
    p.key: p
    for p in (
        Precision("fp32", 32, trainable=True, source="4 bytes per weight", short="fp32"),
        Precision("fp16", 16, trainable=True, source="2 bytes per weight", short="fp16"),
        Precision("bf16", 16, trainable=True, source="2 bytes per weight", short="bf16"),
        # int8/int4 as students load them (bitsandbytes LLM.int8() / 4-bit, transformers'
        # load_in_8bit / load_in_4bit) quantise the nn.Linear layers only, like nf4/gptq4 below:
        # the embeddings and the LM head stay 16-bit. accelerate's table and the plain rule
        # (memory.weights_bytes without an architecture) price every weight at 1 or 0.5 byte.
        Precision("int8", 8, quantized=True, keeps_embeddings_16bit=True, short="int8",
                  source="1 byte per linear-layer weight; embeddings and LM head 16-bit (bitsandbytes LLM.int8())"),
        Precision("int4", 4, quantized=True, keeps_embeddings_16bit=True, short="int4",
                  source="0.5 byte per linear-layer weight; embeddings and LM head 16-bit (bitsandbytes 4-bit)"),
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
