"""The base every provider wire model shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """An immutable contract value whose JSON matches the Rust contract's serde form.

    Unknown keys are ignored on input (a newer peer may send more), and an
    `Optional` field missing on input reads as `None`, as serde does.
    """

    # Field docstrings describe the fields in the published wire schema.
    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)
