"""The driver author's page gives every method of both profiles, as the classes declare it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import conformance.engine as engine
import conformance.provider as provider
from conformance.driver_page import render, signature_line
from conformance.engine import MemoryEngine
from conformance.provider import MemoryDocuments, MemoryProvider

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "driver-author.md"
ELSEWHERE = {"Sequence", "JsonValue", "None"}
"""Names the page says come from outside the kit (or are Python's)."""


def public_methods(owner: type) -> list[str]:
    return [
        name
        for name in dir(owner)
        if not name.startswith("_") and inspect.isfunction(inspect.getattr_static(owner, name))
    ]


def test_the_published_page_is_the_generated_one() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/driver-author.md is stale: python -m conformance.driver_page > docs/driver-author.md"
    )


def test_every_method_of_both_profiles_is_on_the_page() -> None:
    text = render()
    accessors_named = text[text.index("The other accessors") :]
    for owner in (MemoryEngine, MemoryProvider, MemoryDocuments):
        for name in public_methods(owner):
            if name.startswith("as_") and name != "as_documents":
                assert f"`{name}()`" in accessors_named, name
            else:
                assert f"def {name}(" in text, f"{owner.__name__}.{name}"
    # Signatures as declared: the provider's store, argument by argument.
    assert "namespace: str," in signature_line(MemoryProvider, "store")
    assert "opts: OwnedRecallOpts" in signature_line(MemoryProvider, "recall")


def test_every_type_on_the_page_can_be_imported() -> None:
    text = render()
    signatures = "\n".join(re.findall(r"^\s+(?:async )?def .*$|^\s+\w+: .*,$", text, re.M))
    names = set(re.findall(r"\b[A-Z]\w+\b", signatures)) - ELSEWHERE
    missing = {n for n in names if not hasattr(engine, n) and not hasattr(provider, n)}
    assert names and not missing


def test_the_readme_points_driver_authors_to_the_page() -> None:
    assert "(docs/driver-author.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
