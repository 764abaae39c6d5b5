"""Narrowing a fuzz configuration by the constraints a driver declares, and saying so.

A driver that cannot take some contract-valid input declares it
(`conformance.constraints.Constraints`); the fuzzer then never sends it, and every
narrowing is written down (`Narrowed.notes`, shown in the run's header and its report
entry), so a pass is never silently a pass over less than the contract.

Texts are cleaned (disallowed characters dropped, cut to the declared length, never left
empty) rather than filtered, so a narrow alphabet does not starve the search; names are
filtered, since a cleaned name could collide with another one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from hypothesis import strategies as st

from conformance.constraints import Constraints
from conformance.engine import Conversation, Document, DocumentBody, Learning, StoreItem
from conformance.fuzz import pools
from conformance.fuzz.config import (
    DOCUMENTS_BRANCH,
    ROOT_PLACEHOLDER,
    EngineFuzzConfig,
    ProviderFuzzConfig,
    near_miss_keys,
    near_miss_namespaces,
)
from conformance.fuzz.differential import FuzzConfigError
from conformance.fuzz.strategies import DEFAULT_KEY_ALPHABET

__all__ = [
    "MODEL_ROOT",
    "Narrowed",
    "bulk_fit",
    "bulk_fit_item",
    "narrow_engine",
    "narrow_provider",
    "text_cleaner",
]

C = TypeVar("C")

MODEL_ROOT: Final = "tinymemory-conformance/" + "0" * 40 + "/fuzz-provider-differential"
"""A run root at least as long as any real one, for judging namespaces against limits."""


def _same(item: StoreItem) -> StoreItem:
    return item


@dataclass(frozen=True)
class Narrowed(Generic[C]):
    """A configuration narrowed by declared constraints: the configuration, the texts'
    cleaner and (engine) the items' fitter, for bulk writes, and one note per narrowing."""

    config: C
    fit: Callable[[str], str]
    notes: list[str] = field(default_factory=list)
    fit_item: Callable[[StoreItem], StoreItem] = _same
    """Engine: an item the declared constraints admit (`Constraints.admits_item`), made
    from one whose texts `fit` cleaned."""


def _is_control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0


def text_cleaner(constraints: Constraints, *, blank: str = "x") -> Callable[[str], str]:
    """A function making any text one the declared constraints admit as content: drops
    control or non-ASCII characters when they are refused, cuts to the longest length,
    and answers `blank` for a text left empty when empty content is refused."""

    def clean(text: str) -> str:
        if not constraints.control_characters:
            text = "".join(c for c in text if not _is_control(c))
        if not constraints.non_ascii:
            text = "".join(c for c in text if c.isascii())
        if constraints.max_content_length is not None:
            text = text[: constraints.max_content_length]
        if not text and not constraints.empty_content:
            return blank
        return text

    return clean


def _text_notes(constraints: Constraints, what: str) -> list[str]:
    notes: list[str] = []
    if not constraints.control_characters:
        notes.append(f"{what}: no control characters")
    if not constraints.non_ascii:
        notes.append(f"{what}: ASCII only")
    if constraints.max_content_length is not None:
        measure = " (an item's rendered text)" if what.startswith("item") else ""
        notes.append(f"{what}: at most {constraints.max_content_length} characters{measure}")
    return notes


def _non_blank(clean: Callable[[str], str]) -> Callable[[str], str]:
    # Item texts and queries must not be blank, whatever the cleaning left.
    return lambda text: cleaned if (cleaned := clean(text)).strip() else "x"


def _clean_item(item: StoreItem, clean: Callable[[str], str]) -> StoreItem:
    if isinstance(item, Document):
        text = item.body.text
        if text is None:
            return item
        title = None if item.title is None else clean(item.title)
        return item.model_copy(update={"body": DocumentBody(text=clean(text)), "title": title})
    if isinstance(item, Learning):
        evidence = None if item.evidence is None else clean(item.evidence)
        return item.model_copy(update={"text": clean(item.text), "evidence": evidence})
    assert isinstance(item, Conversation)
    turns = [turn.model_copy(update={"text": clean(turn.text)}) for turn in item.turns]
    return item.model_copy(update={"turns": turns})


def item_fitter(
    constraints: Constraints, clean: Callable[[str], str]
) -> Callable[[StoreItem], StoreItem]:
    """A function making an item one `constraints` admits (`Constraints.admits_item`):
    every text cleaned by `clean`, then the rendered text cut to `max_content_length`."""

    def fit(item: StoreItem) -> StoreItem:
        fitted: StoreItem = constraints.fit_item(_clean_item(item, clean))
        return fitted

    return fit


def narrow_engine(config: EngineFuzzConfig, constraints: Constraints) -> Narrowed[EngineFuzzConfig]:
    """`config` with every item (its rendered text, and every text of it) and query
    admitted by `constraints`."""
    notes = _text_notes(constraints, "item texts and queries")
    if not notes:
        return Narrowed(config, lambda text: text)
    clean = _non_blank(text_cleaner(constraints))
    fit_item = item_fitter(constraints, clean)
    narrowed = dataclasses.replace(
        config, items=config.items.map(fit_item), queries=config.queries.map(clean)
    )
    return Narrowed(narrowed, clean, notes, fit_item)


def _rules(alphabet: str | None, most: int | None, unit: str) -> list[str]:
    rules: list[str] = []
    if alphabet is not None:
        rules.append(f"only the characters {alphabet!r}")
    if most is not None:
        rules.append(f"at most {most} {unit}")
    return rules


def _pool_note(what: str, rules: list[str], pool: Sequence[str], kept: Sequence[str]) -> list[str]:
    """The note for a pool narrowed by `rules`, if there are any."""
    if not rules:
        return []
    dropped = [value for value in pool if value not in kept]
    shown = ", ".join(repr(value) for value in dropped[:4]) or "none"
    more = f" and {len(dropped) - 4} more" if len(dropped) > 4 else ""
    return [
        f"{what}: {' and '.join(rules)} (leaves out {len(dropped)} of the {len(pool)} "
        f"near-miss {what}, e.g. {shown}{more})"
    ]


def narrow_provider(
    config: ProviderFuzzConfig, constraints: Constraints
) -> Narrowed[ProviderFuzzConfig]:
    """`config` with every namespace, key, content and query admitted by `constraints`.

    Unset namespaces and keys (`None`) become the near-miss pools less what the
    constraints refuse; strategies a vendor set are filtered. Raises `FuzzConfigError`
    when the constraints admit no namespace under the run root, or no key.
    """
    notes: list[str] = []

    def admits_spec(spec: str) -> bool:
        return constraints.admits_namespace(spec.replace(ROOT_PLACEHOLDER, MODEL_ROOT))

    if not admits_spec(f"{ROOT_PLACEHOLDER}/a"):
        raise FuzzConfigError(
            f"the driver's declared constraints ({'; '.join(constraints.describe())}) refuse "
            f"every namespace under the run root (such as {MODEL_ROOT + '/a'!r}): "
            "the fuzzer cannot write anywhere"
        )
    specs = [spec for spec in pools.PROVIDER_SPECS if admits_spec(spec)]
    rules = _rules(
        constraints.namespace_alphabet, constraints.max_namespace_bytes, "bytes with the run root"
    )
    if not constraints.empty_or_dot_segments:
        rules.append("no empty or '.' segment")
    notes += _pool_note("namespaces", rules, pools.PROVIDER_SPECS, specs)
    keys = [key for key in pools.KEYS if constraints.admits_key(key)]
    key_alphabet = "".join(
        c
        for c in DEFAULT_KEY_ALPHABET
        if constraints.key_alphabet is None or c in constraints.key_alphabet
    )
    if not keys and not key_alphabet:
        raise FuzzConfigError(
            f"the driver's declared constraints ({'; '.join(constraints.describe())}) "
            "admit no entry key the fuzzer can make"
        )
    key_rules = _rules(constraints.key_alphabet, constraints.max_key_length, "characters")
    notes += _pool_note("keys", key_rules, pools.KEYS, keys)
    notes += _text_notes(constraints, "contents, titles and queries")
    if not constraints.empty_content:
        notes.append("contents: never empty")
    clean = text_cleaner(constraints)
    query = _non_blank(clean)
    scope_alphabet = "".join(c for c in "ab.-_" if admits_spec(f"{ROOT_PLACEHOLDER}/{c}a"))
    # The whole domain's names only where no declared limit would filter most of them out.
    whole_names = not rules
    whole_keys = not key_rules and constraints.non_ascii and constraints.control_characters
    namespaces = (
        near_miss_namespaces(
            specs or [f"{ROOT_PLACEHOLDER}/a"], scope_alphabet or "a", whole=whole_names
        )
        if config.namespaces is None
        else config.namespaces
    ).filter(admits_spec)
    most = min(6, constraints.max_key_length or 6)
    made_keys = (
        near_miss_keys(keys or ["k"], key_alphabet or "k", most, whole=whole_keys)
        if config.keys is None
        else config.keys
    ).filter(constraints.admits_key)
    documents, document_namespaces = _document_namespaces(config, admits_spec, notes)
    narrowed = dataclasses.replace(
        config,
        namespaces=namespaces,
        documents=documents,
        document_namespaces=document_namespaces,
        titles=config.titles.map(clean) if notes else config.titles,
        keys=made_keys,
        key_prefixes=config.key_prefixes.filter(lambda p: constraints.admits_key(f"{p}100")),
        contents=config.contents.map(clean) if notes else config.contents,
        queries=config.queries.map(query) if notes else config.queries,
    )
    return Narrowed(narrowed, clean if notes else (lambda text: text), notes)


def _document_namespaces(
    config: ProviderFuzzConfig, admits_spec: Callable[[str], bool], notes: list[str]
) -> tuple[bool, st.SearchStrategy[str] | None]:
    """Whether the documents rules can run, and their namespace specs, narrowed as the
    core ones are (a document spec is judged with `DOCUMENTS_BRANCH` after the root)."""

    def admits(spec: str) -> bool:
        return admits_spec(spec.replace(ROOT_PLACEHOLDER, ROOT_PLACEHOLDER + DOCUMENTS_BRANCH))

    if not config.documents:
        return False, config.document_namespaces
    dropped = [spec for spec in pools.DOCUMENT_SPECS if not admits(spec)]
    if dropped:
        notes.append(f"document namespaces: leaves out {', '.join(map(repr, dropped))}")
    if not admits(f"{ROOT_PLACEHOLDER}/a"):
        notes.append(
            "documents: no namespace under the run's documents root "
            f"({MODEL_ROOT + DOCUMENTS_BRANCH + '/a'!r}) is admitted, so the documents "
            "rules are left out"
        )
        return False, config.document_namespaces
    specs = [spec for spec in pools.DOCUMENT_SPECS if admits(spec)]
    chosen = (
        st.sampled_from(specs or [f"{ROOT_PLACEHOLDER}/a"])
        if config.document_namespaces is None
        else config.document_namespaces
    )
    return True, chosen.filter(admits)


def bulk_fit_item(
    profile: str, constraints: Constraints
) -> Callable[[StoreItem], StoreItem] | None:
    """How bulk items are narrowed for `profile` under `constraints` (`None`: not at all)."""
    if profile != "engine" or not constraints.declared:
        return None
    return narrow_engine(EngineFuzzConfig(), constraints).fit_item


def bulk_fit(profile: str, constraints: Constraints) -> Callable[[str], str] | None:
    """How bulk texts are narrowed for `profile` under `constraints` (`None`: not at all)."""
    if not constraints.declared:
        return None
    if profile == "engine":
        return narrow_engine(EngineFuzzConfig(), constraints).fit
    return narrow_provider(ProviderFuzzConfig(), constraints).fit
