"""Node and name vectors from a static model distilled from the packaged all-MiniLM-L6-v2.

A transformer embeds ~90 node texts/s on 2 cores; a first build has ~100,000 nodes. model2vec
(``model2vec.distill``) runs every word piece of the packaged model's vocabulary through the
model once, keeps the resulting vectors (PCA-rotated, not reduced: still 384-d, so the vector
indexes do not change; SIF-weighted), and afterwards embeds a text as the mean of its pieces'
vectors: ~15,000-20,000 texts/s, ~130 times faster. It is used for what is linked by vector search
(node texts and the names in questions); sentence meaning (which relationship a question means,
:mod:`biokg.graph_agent.paraphrase`) stays with the transformer. Measured quality and the
choice: ``docs/decisions/0010-fast-first-build.md``.

The distilled model is made once per model version into the cache (``models/``, ~45 s on 2 cores,
offline, from the packaged weights: torch and transformers are needed for that step only).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import io
import logging
from functools import cached_property
from pathlib import Path
from typing import Any

from biokg.core.embedding.models import (
    MODEL_FILES,
    Embedder,
    SentenceTransformerEmbedder,
    model_package,
)
from biokg.core.files import atomic_path, made_once
from biokg.core.settings import Settings
from biokg.core.store.dialect import EMBEDDING_DIMENSIONS
from biokg.errors import EmbeddingError

log = logging.getLogger(__name__)
#: Texts per encode call: the mean of piece vectors costs the same for any batch size.
BATCH_TEXTS = 4096


class StaticEmbedder:
    """The static distillation of the packaged model (see module docstring).

    Nothing is loaded until the first :meth:`embed` or :meth:`knows`; a missing distilled model
    is made then.
    """

    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir

    @cached_property
    def model_id(self) -> str:
        """Distiller, its settings and the source model: a change re-embeds every node once."""
        version = importlib.metadata.version("model2vec")
        return (
            f"model2vec {version} static (PCA 384, SIF) of {SentenceTransformerEmbedder().model_id}"
        )

    @cached_property
    def path(self) -> Path:
        digest = hashlib.sha1(self.model_id.encode()).hexdigest()[:12]
        return self.cache_dir / "models" / f"static-all-MiniLM-L6-v2-{digest}"

    def prepare(self) -> Path:
        """Distill the model now if it is not yet (a build does, before it embeds)."""
        return made_once(self.path, (self.path / "model.safetensors").is_file, distill)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit-length vectors, one per text (a text without any known piece: all zeros)."""
        if not texts:
            return []
        import numpy as np

        encoded = self._model.encode(texts, batch_size=BATCH_TEXTS, show_progress_bar=False)
        vectors = encoded.astype(np.float64)  # stored as float16: normalise at full precision
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0, 1.0, norms)).tolist()

    def knows(self, word: str) -> bool:
        return self._model.tokenizer.token_to_id(word.lower()) is not None

    @cached_property
    def _model(self) -> Any:
        return load_distilled(self.prepare())


def load_distilled(folder: Path) -> Any:  # -> model2vec.StaticModel
    """The model ``distill`` saved in ``folder``, read from its three files the way model2vec's
    own loader reads a local folder. ``StaticModel.from_pretrained`` would also import
    huggingface_hub for the Hub and model cards: 0.45 s of each CLI question that searches by
    meaning, for a folder that is never on the Hub."""
    import json

    from model2vec import StaticModel
    from safetensors import safe_open
    from tokenizers import Tokenizer

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    with safe_open(folder / "model.safetensors", framework="numpy") as tensors:
        vectors = tensors.get_tensor("embeddings")
        named = set(tensors.keys())
        extra = {name: tensors.get_tensor(name) for name in ("weights", "mapping") if name in named}
    return StaticModel(
        vectors=vectors,
        tokenizer=Tokenizer.from_file(str(folder / "tokenizer.json")),
        config=config,
        normalize=config.get("normalize", False),
        weights=extra.get("weights"),
        token_mapping=extra.get("mapping"),
        max_length=config.get("max_length", 512),
    )


def distill(path: Path) -> Path:
    """Distill the packaged model into ``path`` (written to a temporary folder, then renamed).

    Raises:
        EmbeddingError: model2vec's distillation extras (torch, transformers, skeletoken) are
            missing, or the distillation failed.
    """
    try:
        from model2vec.distill import distill as model2vec_distill
    except ImportError as err:
        raise EmbeddingError(
            f"making the static embedding model in {path} needs model2vec with torch, "
            "transformers and skeletoken (install requirements.lock)"
        ) from err
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    source = Path(str(model_package().locate_file(MODEL_FILES)))
    log.info("distilling a static embedding model from %s into %s (once)", source, path)
    try:
        with atomic_path(path) as partial, contextlib.redirect_stderr(io.StringIO()):
            # redirected: its progress bars would garble ours
            model = model2vec_distill(model_name=str(source), pca_dims="auto", device="cpu")
            model.save_pretrained(str(partial))
    except Exception as err:  # torch and transformers raise many kinds: all mean "no model"
        raise EmbeddingError(f"distilling the static embedding model failed: {err}") from err
    return path


def node_embedder(settings: Settings) -> Embedder:
    """The embedder of node vectors (and of the names questions search by meaning) that
    ``BIOKG_EMBEDDER`` chooses: the static model (default) or the transformer itself."""
    if settings.embedder == "transformer":
        from biokg.core.embedding.onnx import OnnxEmbedder

        return OnnxEmbedder(settings.cache_dir)  # the transformer's vectors, without torch
    return StaticEmbedder(settings.cache_dir)
