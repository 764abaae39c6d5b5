"""The contract pages define the words a vendor must implement: blank, match, source id."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conformance.engine.blank import RUST_WHITESPACE, is_blank
from conformance.fuzz.session import FuzzSession
from conformance.provider import (
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)
from conformance.rules import rules
from reference_driver.provider import ReferenceProvider

PAGES = Path(__file__).resolve().parents[1] / "docs" / "contract"


def section(page: str, anchor: str) -> str:
    """The text of one rule: from its anchor to the next."""
    text = (PAGES / page).read_text(encoding="utf-8")
    start = text.index(f'<a id="{anchor}"></a>')
    end = text.find("<a id=", start + 1)
    return " ".join(text[start : end if end != -1 else None].split())


def test_blank_names_exactly_the_white_space_the_kit_trims() -> None:
    text = section("items-and-fingerprints.md", "blank")
    named: set[str] = set()
    listed = text[text.index("characters:") : text.index("Nothing else")]
    for first, last in re.findall(r"U\+([0-9A-F]{4})(?: to U\+([0-9A-F]{4}))?", listed):
        named.update(chr(c) for c in range(int(first, 16), int(last or first, 16) + 1))
    assert named == set(RUST_WHITESPACE)
    # What the page says is content is content.
    for code in re.findall(r"U\+([0-9A-F]{4})", text[text.index("Nothing else") :]):
        assert not is_blank(chr(int(code, 16))), code


class RustTrimSubstringRecall(ReferenceProvider):
    """Recall by substring, blank as Rust trims: U+001C is content, found where held."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> list[MemoryEntry]:
        if is_blank(query):
            return []
        namespace = opts.namespace or "global"
        rows = [e for e in self.list(namespace, None, None) if query in e.content]
        return rows[:limit]


def test_the_fuzzer_calls_blank_what_the_page_calls_blank() -> None:
    # U+001C is blank to Python's strip, content to the contract: a recall finding it
    # where it is held conforms.
    fuzz = FuzzSession.start("fuzz.provider.differential", RustTrimSubstringRecall())
    with fuzz.program() as program:
        m: Any = program  # steps are the differential's own methods
        m.store("~/a", "k", "a\x1cb", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
        m.recall("~/a", "\x1c", 5, None, None)
        m.verify()


def test_every_match_rule_and_the_source_id_are_defined() -> None:
    match = section("kit-choices.md", "match")
    for needed in ("Provider recall", "Engine fetch", "one ASCII word", "letter case aside"):
        assert needed in match
    scope = section("provider-families.md", "source-scope")
    # The source id is named by the fields that carry it, and the taint that attributes.
    for needed in ("`IngestItem.source_id`", "`taint` is `external_sync`", "no source field"):
        assert needed in scope
    assert {
        "kit-choices.md#match",
        "provider-families.md#source-scope",
        "items-and-fingerprints.md#blank",
    } <= set(rules())


def test_a_recall_rule_links_to_the_definitions() -> None:
    recall = section("provider-families.md", "recall")
    assert "items-and-fingerprints.md#blank" in recall
    assert "kit-choices.md#match" in recall
