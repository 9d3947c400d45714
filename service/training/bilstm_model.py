"""The BoilerNet network in Keras, and its export to ONNX with tf2onnx.

Dense(projection, relu) → N × bidirectional LSTM(units) → dropout → a
sigmoid per block (Leonhardt et al. 2020; N = 2, 256/256 in the paper).

Padded steps must never influence real ones. Training masks them with an
explicit mask built from the sequence lengths, given to every LSTM (so the
projection of a padded row is computed but never read). For serving, the
same weights go into an *unmasked* twin, which tf2onnx turns into ONNX's
fused ``LSTM`` operator (a masked Keras LSTM becomes a slow ``Loop`` graph
instead); the export then wires a ``lengths`` input into every LSTM node's
``sequence_lens``, which is the operator's own way of ignoring padding,
backwards direction included. A parity check against the masked Keras
model decides whether the artifact is written.

Imports TensorFlow; only the ``train`` extra installs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import onnx

if TYPE_CHECKING:
    import keras
    import tensorflow as tf

# tf2onnx writes the newest IR; ONNX Runtime versions in the field read up to this one.
ONNX_IR_VERSION = 8
OPSET = 17
INPUT_NAME = "blocks"
LENGTHS_NAME = "lengths"
OUTPUT_NAME = "content_probability"


@dataclass(frozen=True)
class NetworkConfig:
    """The shape of the network; ``paper()`` is BoilerNet's published configuration."""

    projection: int = 256
    units: int = 256
    layers: int = 2
    dropout: float = 0.5
    numeric: bool = False  # read the NUMERIC_FEATURES columns too
    class_tokens: int = 0  # read a bag of this many id/class words of the block's ancestors (0: none)
    candidates: bool = False  # read Readability's candidate scores (service.features.candidates)

    @classmethod
    def paper(cls) -> NetworkConfig:
        return cls()

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def build_network(width: int, config: NetworkConfig, *, masked: bool) -> keras.Model:
    """A Keras model ``(blocks [b, n, width], lengths [b]) -> probability [b, n]``.

    ``masked=False`` builds the export twin: identical layers and weight
    shapes, no mask (the ONNX graph gets ``sequence_lens`` instead).
    """
    import keras  # noqa: PLC0415 - training dependency
    from keras import layers, ops  # noqa: PLC0415

    class LengthMask(layers.Layer):
        """True at the real steps of each sequence, False at the padding."""

        def call(self, blocks: Any, lengths: Any) -> Any:  # symbolic or eager tensors
            steps = ops.arange(ops.shape(blocks)[1], dtype="int32")
            return ops.less(ops.expand_dims(steps, 0), ops.expand_dims(lengths, 1))

    blocks = keras.Input((None, width), name=INPUT_NAME)
    lengths = keras.Input((), dtype="int32", name=LENGTHS_NAME)
    mask = LengthMask(name="length_mask")(blocks, lengths) if masked else None
    hidden = layers.Dense(config.projection, activation="relu", name="projection")(blocks)
    for index in range(config.layers):
        lstm = layers.LSTM(config.units, return_sequences=True, name=f"lstm_{index}")
        hidden = layers.Bidirectional(lstm, name=f"bilstm_{index}")(hidden, mask=mask)
    hidden = layers.Dropout(config.dropout, name="dropout")(hidden)
    probability = layers.Dense(1, activation="sigmoid", name="output")(hidden)
    probability = layers.Reshape((-1,), name=OUTPUT_NAME)(probability)
    return keras.Model([blocks, lengths], probability)


def export_onnx(model: keras.Model, width: int, config: NetworkConfig) -> onnx.ModelProto:
    """The trained (masked) model as ONNX with fused LSTMs reading ``lengths``."""
    import tensorflow as tf  # noqa: PLC0415 - training dependency
    import tf2onnx  # noqa: PLC0415

    twin = build_network(width, config, masked=False)
    twin.set_weights(model.get_weights())
    signature = (
        tf.TensorSpec((None, None, width), tf.float32, name=INPUT_NAME),
        tf.TensorSpec((None,), tf.int32, name=LENGTHS_NAME),
    )

    @tf.function(input_signature=signature)
    def serve(blocks: tf.Tensor, lengths: tf.Tensor) -> dict[str, tf.Tensor]:
        return {OUTPUT_NAME: twin([blocks, lengths], training=False)}

    proto, _ = tf2onnx.convert.from_function(serve, input_signature=signature, opset=OPSET)
    return wire_sequence_lengths(proto)


def wire_sequence_lengths(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Make every LSTM node read the ``lengths`` graph input as its ``sequence_lens``."""
    lstms = [node for node in proto.graph.node if node.op_type == "LSTM"]
    if not lstms:
        raise ValueError("the exported graph has no fused LSTM node (did the mask leak into the export twin?)")
    if LENGTHS_NAME not in {i.name for i in proto.graph.input}:
        proto.graph.input.append(onnx.helper.make_tensor_value_info(LENGTHS_NAME, onnx.TensorProto.INT32, [None]))
    for node in lstms:
        while len(node.input) < 5:
            node.input.append("")
        node.input[4] = LENGTHS_NAME
    proto.ir_version = ONNX_IR_VERSION
    onnx.checker.check_model(proto)
    return proto
