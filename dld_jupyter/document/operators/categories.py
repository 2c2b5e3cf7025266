"""Palette category of every operator (seed 000 "Layers": arrange the palette by category).

The table covers every op of the default ONNX domain by name; other domains fall back to name patterns
(contrib ops are named after what they compute), then to `OTHER`. The canvas colours nodes by category too,
so related ops share a colour.
"""

from __future__ import annotations

CONVOLUTION = "Convolution"
POOLING = "Pooling"
ACTIVATION = "Activation"
NORMALIZATION = "Normalization"
MATH = "Math / Elementwise"
REDUCTION = "Reduction"
MATMUL = "Matrix Multiply"
ATTENTION = "Attention"
SHAPE = "Shape / Tensor"
CONTROL_FLOW = "Control Flow"
QUANTIZATION = "Quantization"
RECURRENT = "Recurrent"
GENERATOR = "Generator / Random"
LOGICAL = "Logical / Comparison"
SEQUENCE = "Sequence / Map"
IMAGE = "Image"
SIGNAL = "Signal"
TEXT = "Text / String"
LOSS = "Loss"
TRAINING = "Training"
CLASSICAL_ML = "Classical ML"
OTHER = "Other"

CATEGORIES: tuple[str, ...] = (
    CONVOLUTION, POOLING, ACTIVATION, NORMALIZATION, MATH, REDUCTION, MATMUL, ATTENTION, SHAPE,
    CONTROL_FLOW, QUANTIZATION, RECURRENT, GENERATOR, LOGICAL, SEQUENCE, IMAGE, SIGNAL, TEXT, LOSS,
    TRAINING, CLASSICAL_ML, OTHER,
)  # fmt: skip

_TABLE: dict[str, str] = {}


def _put(category: str, names: str) -> None:
    for name in names.split():
        _TABLE[name] = category


_put(CONVOLUTION, "Conv ConvTranspose ConvInteger DeformConv Col2Im QLinearConv CausalConvWithState")
_put(POOLING, "AveragePool MaxPool GlobalAveragePool GlobalMaxPool GlobalLpPool LpPool MaxRoiPool MaxUnpool")
_put(
    ACTIVATION,
    "Relu LeakyRelu PRelu Elu Selu Celu Sigmoid HardSigmoid Tanh Softplus Softsign Softmax LogSoftmax "
    "Hardmax HardSwish Mish Gelu Swish SwiGLU ThresholdedRelu Shrink",
)
_put(
    NORMALIZATION,
    "BatchNormalization InstanceNormalization LayerNormalization GroupNormalization RMSNormalization LRN "
    "LpNormalization MeanVarianceNormalization",
)
_put(
    MATH,
    "Abs Acos Acosh Add Asin Asinh Atan Atanh Ceil Clip Cos Cosh CumProd CumSum Det Div Erf Exp Floor Log "
    "Max Mean Min Mod Mul Neg Pow Reciprocal Round Sign Sin Sinh Sqrt Sub Sum Tan BitShift BitwiseAnd "
    "BitwiseNot BitwiseOr BitwiseXor Einsum",
)
_put(
    REDUCTION,
    "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum "
    "ReduceSumSquare ArgMax ArgMin TopK",
)
_put(MATMUL, "MatMul Gemm MatMulInteger QLinearMatMul")
_put(ATTENTION, "Attention LinearAttention RotaryEmbedding FlexAttention")
_put(
    SHAPE,
    "Reshape Flatten Squeeze Unsqueeze Transpose Concat Split Slice Gather GatherElements GatherND Scatter "
    "ScatterElements ScatterND TensorScatter Expand Tile Pad Shape Size Identity Cast CastLike BitCast "
    "Constant ConstantOfShape DepthToSpace SpaceToDepth Compress NonZero OneHot Unique Where ReverseSequence "
    "Trilu Range EyeLike Dropout CenterCropPad",
)
_put(CONTROL_FLOW, "If Loop Scan")
_put(QUANTIZATION, "QuantizeLinear DequantizeLinear DynamicQuantizeLinear")
_put(RECURRENT, "RNN GRU LSTM")
_put(GENERATOR, "RandomNormal RandomNormalLike RandomUniform RandomUniformLike Bernoulli Multinomial")
_put(
    LOGICAL,
    "And Or Xor Not Equal Greater GreaterOrEqual Less LessOrEqual IsInf IsNaN",
)
_put(
    SEQUENCE,
    "SequenceAt SequenceConstruct SequenceEmpty SequenceErase SequenceInsert SequenceLength SequenceMap "
    "ConcatFromSequence SplitToSequence Optional OptionalGetElement OptionalHasElement",
)
_put(IMAGE, "Resize Upsample GridSample AffineGrid RoiAlign NonMaxSuppression ImageDecoder")
_put(SIGNAL, "DFT STFT BlackmanWindow HammingWindow HannWindow MelWeightMatrix")
_put(TEXT, "StringConcat StringNormalizer StringSplit RegexFullMatch TfIdfVectorizer")
_put(LOSS, "NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss")
_put(TRAINING, "Adagrad Adam Gradient Momentum")

# Contrib and custom ops: first matching substring wins, so specific patterns come first.
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("Quantiz", QUANTIZATION),
    ("BlockQuantized", QUANTIZATION),
    ("NBits", QUANTIZATION),
    ("BFP", QUANTIZATION),
    ("Attention", ATTENTION),
    ("RotaryEmbedding", ATTENTION),
    ("RelativePositionBias", ATTENTION),
    ("Norm", NORMALIZATION),
    ("MatMul", MATMUL),
    ("Gemm", MATMUL),
    ("MoE", MATMUL),
    ("Conv", CONVOLUTION),
    ("Pool", POOLING),
    ("Gelu", ACTIVATION),
    ("SiLU", ACTIVATION),
    ("Relu", ACTIVATION),
    ("Softmax", ACTIVATION),
    ("Sigmoid", ACTIVATION),
    ("LSTM", RECURRENT),
    ("GRU", RECURRENT),
    ("Search", CONTROL_FLOW),
    ("Sampling", CONTROL_FLOW),
    ("Tokenizer", TEXT),
    ("Hash", TEXT),
    ("NGram", TEXT),
    ("fft", SIGNAL),
    ("Padding", SHAPE),
    ("Embed", SHAPE),
    ("Reorder", SHAPE),
    ("Dropout", SHAPE),
    ("Resize", IMAGE),
    ("Grid", IMAGE),
    ("Reduce", REDUCTION),
    ("Expand", SHAPE),
    ("Unfold", SHAPE),
    ("Finite", LOGICAL),
    ("Inverse", MATH),
    ("CDist", MATH),
    ("Add", MATH),
    ("Mul", MATH),
)
_QUANTIZED_PREFIXES = ("QLinear", "QOrdered")


def category_for(op_type: str, domain: str = "") -> str:
    """The palette category of `op_type` in `domain` (`OTHER` when nothing fits)."""
    if domain in ("", "ai.onnx", "ai.onnx.preview", "ai.onnx.preview.training") and op_type in _TABLE:
        return _TABLE[op_type]
    if domain == "ai.onnx.ml":
        return CLASSICAL_ML
    if op_type.startswith(_QUANTIZED_PREFIXES):
        return QUANTIZATION
    lowered = op_type.lower()
    for pattern, category in _PATTERNS:
        if pattern.lower() in lowered:
            return category
    # Other Q-prefixed contrib ops (QEmbedLayerNormalization, QGemm...) are quantized variants.
    if op_type.startswith("Q") and op_type[1:2].isupper():
        return QUANTIZATION
    return _TABLE.get(op_type, OTHER)
