"""The shipped model library: published ``config.json`` values of well-known models (``models.json``),
each with the URL it was written from and, where a paper or the developer states them, the training
tokens with their source."""
from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import InputError, parse_input, quoted
from ..shipped import read_shipped_json, shipped_data_error

LIBRARY_FILE = Path(__file__).with_name("models.json")


class LibraryModel(BaseModel):
    """One entry of ``models.json``, validated as it is read (a file, so an input)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    family: str
    source: str
    config: dict
    training_tokens: float | None = None
    training_tokens_source: str | None = None
    note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name} — {self.family}"


@functools.cache
def _models() -> tuple[LibraryModel, ...]:
    data = read_shipped_json(LIBRARY_FILE, {"models": list})
    try:
        return tuple(parse_input(LibraryModel, entry, source=f"models[{i}]") for i, entry in enumerate(data["models"]))
    except InputError as exc:
        raise shipped_data_error(LIBRARY_FILE, exc) from None


def library_models() -> list[LibraryModel]:
    """Every model in the library, in its order (by family)."""
    return list(_models())


@functools.cache
def _by_id() -> dict[str, LibraryModel]:
    """Each ``id``'s model (the first, were an ``id`` written twice)."""
    index: dict[str, LibraryModel] = {}
    for model in _models():
        index.setdefault(model.id, model)
    return index


def library_model(model_id: str) -> LibraryModel:
    """The model with this ``id``; ``InputError`` naming the known ones otherwise."""
    model = _by_id().get(model_id) if isinstance(model_id, str) else None
    if model is not None:
        return model
    import difflib

    ids = [m.id for m in _models()]
    near = difflib.get_close_matches(str(model_id)[:80].lower(), ids, n=5, cutoff=0.5)
    raise InputError("model", f"{quoted(model_id)} is not in the model library of {len(ids)} models"
                              + (f"; nearest: {', '.join(near)}" if near else "")
                              + " (all of them: python -m engine transformer --list-models)")
