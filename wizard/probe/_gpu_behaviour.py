"""What a CUDA GPU does that meta tensors do not, for the VRAM measuring probe (vram_measure.py):
CUDA autocast's op lists, the fused attention kernel. A module of its own so the probe stays
readable; stdlib + torch only, Python 3.8 syntax, like every probe file.
"""

# CUDA autocast's op lists (aten/src/ATen/autocast_mode.cpp, torch 2.x), by the Python name each
# op is reached by: these run in the 16-bit type...
LOWER = frozenset((
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc",
    "convolution", "prelu", "addmm", "addmv", "addr", "matmul", "__matmul__", "__rmatmul__", "einsum", "mm",
    "mv", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "multi_dot", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell", "lstm", "gru", "rnn_tanh", "rnn_relu", "scaled_dot_product_attention",
    "_convolution", "bilinear",
))
# ... and these in fp32
FP32 = frozenset((
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
    "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "frobenius_norm", "nuclear_norm",
    "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
    "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
    "softmax", "log_softmax", "cross_entropy", "cross_entropy_loss", "cumsum", "cumprod", "prod", "sum",
    "nansum", "vector_norm", "matrix_norm", "rms_norm",
))


class GpuBehaviour(object):
    """A TorchFunctionMode (made lazily: its base class needs torch) that makes meta tensors do
    what a CUDA GPU does where the meta device would not:

    - attention: ``scaled_dot_product_attention`` on meta takes the math path, which keeps the
      seq x seq scores; a GPU (and a CPU) runs a fused kernel that keeps the output and one
      log-sum-exp per row. The CPU's fused kernel, which has a meta kernel and the same saved
      tensors as flash attention on a GPU, is called instead (a grouped-query call, a learned
      bias as the mask, or a torch without that kernel keeps the original);
    - mixed precision (``amp``: a 16-bit dtype): CUDA autocast's op lists, the 16-bit copy of a
      weight made once per forward, as autocast caches it.
    """

    @staticmethod
    def make(torch, amp=None, fused_attention=True):
        from torch.overrides import TorchFunctionMode

        fused = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None) \
            if fused_attention else None

        class Mode(TorchFunctionMode):
            def __init__(self):
                TorchFunctionMode.__init__(self)
                self.cache = {}  # a leaf's (a weight's) 16-bit copy, made once per forward

            def _cast(self, value, to):
                if isinstance(value, torch.Tensor):
                    if not value.is_floating_point() or value.dtype == to or value.dtype == torch.float64:
                        return value
                    leaf = value.is_leaf and value.requires_grad
                    key = (id(value), to)
                    if leaf and key in self.cache:
                        return self.cache[key]
                    out = value.to(to)
                    if leaf:
                        self.cache[key] = out
                    return out
                if isinstance(value, (list, tuple)):
                    return type(value)(self._cast(v, to) for v in value)
                return value

            def _attention(self, func, args, kwargs):
                names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
                bound = dict(zip(names, args))
                bound.update(kwargs)
                q, k, v = bound.get("query"), bound.get("key"), bound.get("value")
                if fused is None or bound.get("enable_gqa") or q is None or q.dim() != 4 \
                        or q.shape[1] != k.shape[1] or q.device.type != "meta":
                    return func(*args, **kwargs)
                mask = bound.get("attn_mask")
                if mask is not None and mask.requires_grad:  # a learned bias (T5): the fused CPU kernel
                    return func(*args, **kwargs)  # gives it no gradient; a GPU keeps it, as the math path
                if mask is not None and mask.dtype == torch.bool:
                    mask = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(~mask, float("-inf"))
                try:
                    return fused(q, k, v, float(bound.get("dropout_p") or 0.0), bool(bound.get("is_causal")),
                                 attn_mask=mask, scale=bound.get("scale"))[0]
                except (RuntimeError, TypeError):
                    return func(*args, **kwargs)

            def call(self, name, func, args, kwargs):
                if amp is not None and name in LOWER:
                    args, kwargs = self._cast(args, amp), dict((k, self._cast(v, amp)) for k, v in kwargs.items())
                elif amp is not None and name in FP32:
                    args = self._cast(args, torch.float32)
                    kwargs = dict((k, self._cast(v, torch.float32) if k != "dtype" else v) for k, v in kwargs.items())
                if name == "scaled_dot_product_attention":
                    return self._attention(func, args, kwargs)
                return func(*args, **kwargs)

            def __torch_function__(self, func, types_, args=(), kwargs=None):
                return self.call(getattr(func, "__name__", ""), func, args, kwargs or {})

            def __enter__(self):
                # A mode sees the calls a model makes, not those inside torch.nn.functional's own
                # functions (multi_head_attention_forward's linear and attention run with the mode
                # set aside): those are reached through the module's names, wrapped while it runs.
                functional = torch.nn.functional
                self.saved = {}
                for name in sorted(LOWER | FP32 | set(["scaled_dot_product_attention"])):
                    original = getattr(functional, name, None)
                    if callable(original):
                        self.saved[name] = original
                        setattr(functional, name, self._wrap(name, original))
                return TorchFunctionMode.__enter__(self)

            def __exit__(self, *exc):
                for name, original in self.saved.items():
                    setattr(torch.nn.functional, name, original)
                return TorchFunctionMode.__exit__(self, *exc)

            def _wrap(self, name, original):
                def wrapped(*args, **kwargs):
                    return self.call(name, original, args, kwargs)
                wrapped.__name__ = name
                return wrapped

        return Mode()
