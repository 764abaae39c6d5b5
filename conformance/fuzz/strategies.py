"""Hypothesis strategies for both profiles' values, valid and invalid.

Every strategy takes keyword arguments for what real stores constrain: the
alphabet and size of keys, texts and scopes, the pools metadata values come
from. A vendor whose store refuses some values narrows the strategy that makes
them (``provider_keys(alphabet="abc", max_size=8)``) and passes it in a
``ProviderFuzzConfig`` / ``EngineFuzzConfig`` rather than waive the fuzzer.

Defaults are chosen so the bundled drivers (``reference``, ``null``, ``sqlite``)
take everything verbatim: for example provider scopes default to ``[a-z0-9-]``,
because an on-disk store that maps ``:``, ``.``, ``@`` and ``+`` to ``_`` in its
physical addresses (contract-reference A11) makes ``a.b`` and ``a_b`` collide.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final, NamedTuple

from hypothesis import strategies as st

from conformance.engine import (
    MAX_BUCKETS,
    MAX_DEPTH,
    MAX_GET_IDS,
    MAX_SCAN_LIMIT,
    MAX_SEGMENT_ID,
    Conversation,
    Document,
    DocumentBody,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetIds,
    GetRequest,
    ItemKind,
    Learning,
    LearningKind,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallRequest,
    Role,
    Segment,
    SegmentKind,
    SourceKind,
    SourceRef,
    StoreItem,
    ToolCallRef,
    Turn,
    TurnRange,
    f32_wire,
)
from conformance.engine.blank import is_blank
from conformance.provider import (
    GLOBAL_NAMESPACE,
    MAX_NAMESPACE_LEN,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    OwnedRecallOpts,
)
from conformance.timestamps import Timestamp, TimestampLike

__all__ = [
    "BAD_CURSOR",
    "DEFAULT_KEY_ALPHABET",
    "DEFAULT_SCOPE_ALPHABET",
    "EDGE_TIMES",
    "SEGMENT_ID_ALPHABET",
    "WORDS",
    "EngineRequest",
    "ProviderEntry",
    "categories",
    "confidences",
    "conversations",
    "documents",
    "engine_items",
    "engine_namespaces",
    "facets",
    "fetch_modes",
    "invalid_engine_items",
    "invalid_engine_requests",
    "invalid_provider_namespaces",
    "learnings",
    "long_texts",
    "meta_filters",
    "metas",
    "non_blank_texts",
    "provider_contents",
    "provider_entries",
    "provider_keys",
    "provider_namespaces",
    "reaches",
    "recall_options",
    "section_prefixes",
    "segment_ids",
    "segments",
    "session_ids",
    "taints",
    "texts",
    "timestamps",
    "whole_provider_namespaces",
    "word_texts",
]

# -- shared -----------------------------------------------------------------------------

WORDS: Final = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
"""The word pool of `word_texts`: texts made of few words share words, so queries hit."""

BAD_CURSOR: Final = "!not-a-cursor!"
"""A cursor no driver issued: every read handed it must refuse it."""

SEGMENT_ID_ALPHABET: Final = string.ascii_letters + string.digits + "_-"
"""What an engine namespace segment id may hold (contract-reference B4)."""

DEFAULT_KEY_ALPHABET: Final = string.ascii_letters + string.digits + "-_."
"""Provider keys by default: ASCII letters (both cases, so case folding shows), digits, `-_.`."""

DEFAULT_SCOPE_ALPHABET: Final = string.ascii_lowercase + string.digits + "-"
"""Provider scope segments by default; see the module docstring for why no `_ . : @ +`."""

_UNICODE: Final = st.characters(codec="utf-8")
# Rust strings hold Unicode scalar values only, so no lone surrogates anywhere.


def texts(
    *, alphabet: str | st.SearchStrategy[str] | None = None, min_size: int = 0, max_size: int = 40
) -> st.SearchStrategy[str]:
    """Text of `min_size..=max_size` characters from `alphabet` (default: any Unicode
    scalar value). Pass a string of allowed characters, or a `characters(...)` strategy."""
    return st.text(
        alphabet=_UNICODE if alphabet is None else alphabet, min_size=min_size, max_size=max_size
    )


def non_blank_texts(
    *, alphabet: str | st.SearchStrategy[str] | None = None, max_size: int = 40
) -> st.SearchStrategy[str]:
    """`texts` that are not blank once trimmed (what item texts and queries must be)."""
    return texts(alphabet=alphabet, min_size=1, max_size=max_size).filter(
        lambda text: not is_blank(text)
    )


def word_texts(
    *, words: Sequence[str] = WORDS, min_words: int = 1, max_words: int = 4
) -> st.SearchStrategy[str]:
    """Space-separated words from `words`; texts sharing words make fetch and recall hit."""
    return st.lists(st.sampled_from(words), min_size=min_words, max_size=max_words).map(" ".join)


# -- engine values ----------------------------------------------------------------------


def segment_ids(
    *, alphabet: str = SEGMENT_ID_ALPHABET, max_size: int = MAX_SEGMENT_ID
) -> st.SearchStrategy[str]:
    """Valid segment ids; narrow `alphabet` or `max_size` to a subset of `[A-Za-z0-9_-]{1,128}`."""
    return st.text(alphabet=alphabet, min_size=1, max_size=max_size)


def segments(
    *,
    kinds: Sequence[SegmentKind] = tuple(SegmentKind),
    ids: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Segment]:
    """`kind:id` segments of the given kinds, ids from `ids` (default `segment_ids()`)."""
    return st.builds(Segment, st.sampled_from(list(kinds)), segment_ids() if ids is None else ids)


def engine_namespaces(
    *,
    kinds: Sequence[SegmentKind] = tuple(SegmentKind),
    ids: st.SearchStrategy[str] | None = None,
    max_depth: int = MAX_DEPTH,
) -> st.SearchStrategy[Namespace]:
    """Namespaces up to `max_depth` deep (root included). Pass a small `ids` pool
    (`st.sampled_from(["a", "b"])`) and `max_depth=3` to get nodes that nest and share."""
    return st.lists(segments(kinds=kinds, ids=ids), max_size=max_depth).map(Namespace)


def reaches(*, namespaces: st.SearchStrategy[Namespace] | None = None) -> st.SearchStrategy[Reach]:
    """Reaches at nodes from `namespaces`, with every inherit/descendants combination."""
    return st.builds(
        Reach,
        at=engine_namespaces() if namespaces is None else namespaces,
        inherit=st.booleans(),
        descendants=st.booleans(),
    )


def confidences() -> st.SearchStrategy[float]:
    """Valid learning confidences, as an `f32` reads them back (so JSON round trips)."""
    return st.floats(min_value=0.0, max_value=1.0).map(f32_wire)


_MOMENTS: Final = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)

EDGE_TIMES: Final = tuple(
    Timestamp.parse(text)
    for text in (
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "0999-12-31T23:59:59.999999999Z",
        "1900-03-01T00:00:00Z",
        "1969-12-31T23:59:59.999999999Z",
        "1970-01-01T00:00:00Z",
        "1970-01-01T00:00:00.000000001Z",
        "2000-02-29T12:00:00.5Z",
        "2038-01-19T03:14:07Z",
        "2038-01-19T03:14:08Z",
        "2262-04-11T23:47:16.854775807Z",
        "2262-04-11T23:47:16.854775808Z",
        "9999-12-31T23:59:59.999999999Z",
    )
)
"""Instants stores trip over: the first and last the contract admits, the year 1 a
`datetime` starts at, the last nanosecond before the Unix epoch and the first after it,
a leap day, the last second of 32-bit seconds and the first past it, the last nanosecond
of 64-bit nanoseconds and the first past it."""


def timestamps() -> st.SearchStrategy[Timestamp]:
    """Instants over the contract's whole range (years 0000 to 9999, to the nanosecond):
    the `EDGE_TIMES`, any instant, or one on a whole second, millisecond or microsecond
    (each written with its own number of fraction digits)."""
    whole = st.integers(EDGE_TIMES[0].nanos, EDGE_TIMES[-1].nanos)
    rounded = st.builds(
        lambda nanos, unit: Timestamp(nanos - nanos % unit),
        whole,
        st.sampled_from([1_000_000_000, 1_000_000, 1_000]),
    )
    return st.sampled_from(EDGE_TIMES) | whole.map(Timestamp) | rounded


def long_texts(*, least: int = 200, most: int = 5_000) -> st.SearchStrategy[str]:
    """Texts of `least` to `most` characters, drawn cheaply: a short non-blank text
    repeated (a store that cuts texts at 255, 1000 or 4096 characters shows)."""
    return st.builds(
        lambda piece, length: (piece * (length // len(piece) + 1))[:length],
        non_blank_texts(max_size=8),
        st.integers(least, most),
    )


_META_FIELDS: Final = (
    "folder",
    "file_path",
    "language",
    "repo",
    "commit",
    "url",
    "thread_id",
    "turns",
    "agent_id",
    "tool_call",
    "source_id",
    "observed_at",
    "derive",
)


def metas(
    *,
    namespaces: st.SearchStrategy[Namespace] | None = None,
    workspace: st.SearchStrategy[str | None] | None = None,
    values: st.SearchStrategy[str] | None = None,
    tags: st.SearchStrategy[str] | None = None,
    max_tags: int = 3,
    max_fields: int = 4,
    sources: Sequence[SourceKind] = tuple(SourceKind),
    moments: st.SearchStrategy[TimestampLike] | None = None,
    folders: st.SearchStrategy[str] | None = None,
    file_paths: st.SearchStrategy[str] | None = None,
    source_ids: st.SearchStrategy[str] | None = None,
    turns: st.SearchStrategy[TurnRange] | None = None,
) -> st.SearchStrategy[MemoryMeta]:
    """Item metadata: a namespace, a source, tags, and up to `max_fields` of the optional
    fields (folder, file path, language, repo, commit, url, thread, turns, agent, tool
    call, source id, observed_at, derive). `values` feeds every optional string not
    given its own pool, `tags` the tag list, `moments` `observed_at`; `folders`,
    `file_paths`, `source_ids` and `turns` default to paths and ids made from `values`.

    Pools make filters match: `values=st.sampled_from(["x", "y"])` gives items that
    agree on some fields and differ on others. `workspace` defaults to none (the
    fuzz machines set it to their run root). Setting a few fields per item, not all,
    keeps drawing cheap and leaves fields unset, which filters must handle too.
    """
    value = values if values is not None else texts(max_size=20)
    moment = moments if moments is not None else _MOMENTS
    node = engine_namespaces() if namespaces is None else namespaces
    space = st.none() if workspace is None else workspace
    # Built once, outside `build`: a strategy made afresh on every draw is validated
    # afresh too, which made drawing metadata several times slower.
    tag_lists = st.lists(value if tags is None else tags, max_size=max_tags, unique=True)
    names = st.lists(st.sampled_from(_META_FIELDS), max_size=max_fields, unique=True)
    small = st.integers(0, 3)
    maybe = st.none() | value
    kinds = st.sampled_from(list(sources))
    folder = folders if folders is not None else value.map(lambda v: "/" + v)
    file_path = file_paths if file_paths is not None else value.map(lambda v: f"/{v}/file")
    source_id = source_ids if source_ids is not None else value
    turn_range = turns if turns is not None else st.builds(TurnRange, first=small, last=small)

    @st.composite
    def build(draw: st.DrawFn) -> MemoryMeta:
        fields: dict[str, object] = {
            "namespace": draw(node),
            "workspace": draw(space),
            "tags": draw(tag_lists),
        }
        held_source: str | None = None
        for name in draw(names):
            if name == "folder":
                fields[name] = draw(folder)
            elif name == "file_path":
                fields[name] = draw(file_path)
            elif name == "turns":
                fields[name] = draw(turn_range)
            elif name == "tool_call":
                fields[name] = ToolCallRef(name=draw(value), id=draw(maybe))
            elif name == "source_id":
                held_source = draw(source_id)
            elif name == "observed_at":
                fields[name] = draw(moment)
            elif name == "derive":
                fields[name] = draw(st.booleans())
            else:
                fields[name] = draw(value)
        fields["source"] = SourceRef(kind=draw(kinds), id=held_source)
        return MemoryMeta.model_validate(fields)

    return build()


def documents(
    *,
    text: st.SearchStrategy[str] | None = None,
    titles: st.SearchStrategy[str | None] | None = None,
    meta: st.SearchStrategy[MemoryMeta] | None = None,
) -> st.SearchStrategy[Document]:
    """Valid text documents (`text` must not be blank), with optional title and MIME type."""
    return st.builds(
        Document,
        title=titles if titles is not None else st.none() | texts(max_size=12),
        body=st.builds(DocumentBody, text=non_blank_texts() if text is None else text),
        mime=st.none() | st.sampled_from(["text/plain", "text/markdown"]),
        meta=metas() if meta is None else meta,
    )


def conversations(
    *,
    text: st.SearchStrategy[str] | None = None,
    max_turns: int = 3,
    meta: st.SearchStrategy[MemoryMeta] | None = None,
) -> st.SearchStrategy[Conversation]:
    """Valid conversations of 1..=`max_turns` non-blank turns, some with tool calls."""
    turn = st.builds(
        Turn,
        role=st.sampled_from(list(Role)),
        text=non_blank_texts() if text is None else text,
        at=st.none() | _MOMENTS | timestamps(),
        tool_calls=st.lists(
            st.builds(
                ToolCallRef,
                name=st.sampled_from(["search", "read"]),
                id=st.none() | st.just("call-1"),
            ),
            max_size=2,
        ),
    )
    return st.builds(
        Conversation,
        turns=st.lists(turn, min_size=1, max_size=max_turns),
        meta=metas() if meta is None else meta,
    )


def learnings(
    *,
    text: st.SearchStrategy[str] | None = None,
    meta: st.SearchStrategy[MemoryMeta] | None = None,
) -> st.SearchStrategy[Learning]:
    """Valid learnings: non-blank text, a confidence in 0..=1, optional evidence."""
    return st.builds(
        Learning,
        text=non_blank_texts() if text is None else text,
        learning_kind=st.sampled_from(list(LearningKind)),
        confidence=confidences(),
        evidence=st.none() | texts(max_size=12),
        meta=metas() if meta is None else meta,
    )


def engine_items(
    *,
    text: st.SearchStrategy[str] | None = None,
    meta: st.SearchStrategy[MemoryMeta] | None = None,
    kinds: Sequence[ItemKind] = tuple(ItemKind),
) -> st.SearchStrategy[StoreItem]:
    """Valid items of the given kinds; `text` feeds bodies, turns and learning texts."""
    makers: dict[ItemKind, st.SearchStrategy[StoreItem]] = {
        ItemKind.DOCUMENT: documents(text=text, meta=meta),
        ItemKind.CONVERSATION: conversations(text=text, meta=meta),
        ItemKind.LEARNING: learnings(text=text, meta=meta),
    }
    chosen: list[st.SearchStrategy[StoreItem]] = [makers[kind] for kind in kinds]
    return st.one_of(chosen)


def invalid_engine_items(
    *, meta: st.SearchStrategy[MemoryMeta] | None = None
) -> st.SearchStrategy[StoreItem]:
    """Items every engine must refuse with `InvalidRequest` (contract-reference B2): a
    blank or URI body, no turns, a blank turn, a blank learning, a confidence outside
    0..=1 (NaN included)."""
    made = metas() if meta is None else meta
    blank = st.sampled_from(["", " ", "\t\n", "\u3000"])
    return st.one_of(
        st.builds(Document, body=st.builds(DocumentBody, text=blank), meta=made),
        st.builds(Document, body=st.just(DocumentBody(uri="https://example.test/doc")), meta=made),
        st.builds(Conversation, turns=st.just([]), meta=made),
        st.builds(
            Conversation,
            turns=st.lists(
                st.builds(Turn, role=st.just(Role.USER), text=blank), min_size=1, max_size=2
            ),
            meta=made,
        ),
        st.builds(
            Learning,
            text=blank,
            learning_kind=st.just(LearningKind.FACT),
            confidence=st.just(0.5),
            meta=made,
        ),
        st.builds(
            Learning,
            text=st.just("out of range"),
            learning_kind=st.just(LearningKind.FACT),
            confidence=st.sampled_from([1.5, -0.1, float("nan"), float("inf")]),
            meta=made,
        ),
    )


def meta_filters(
    *,
    reaches: st.SearchStrategy[Reach | None] | None = None,
    values: st.SearchStrategy[str] | None = None,
    tags: st.SearchStrategy[str] | None = None,
    moments: st.SearchStrategy[TimestampLike] | None = None,
    folders: st.SearchStrategy[str] | None = None,
    file_paths: st.SearchStrategy[str] | None = None,
    source_ids: st.SearchStrategy[str] | None = None,
    turns: st.SearchStrategy[TurnRange] | None = None,
) -> st.SearchStrategy[MetaFilter]:
    """Filters setting a few fields at a time (a filter setting all of them admits
    almost nothing). Draw `values`, `tags`, `moments`, `folders`, `file_paths`,
    `source_ids` and `turns` from the pools the items used, so filters admit some items
    and not others (`moments` gives the window bounds). `workspace` is left unset."""
    value = values if values is not None else texts(max_size=20)
    moment = moments if moments is not None else _MOMENTS
    reach = reaches if reaches is not None else st.none()
    folder = folders if folders is not None else value.map(lambda v: "/" + v)
    file_path = file_paths if file_paths is not None else value.map(lambda v: "/" + v)
    source_id = source_ids if source_ids is not None else value
    field = st.sampled_from(
        [
            "folder",
            "file_path",
            "language",
            "repo",
            "thread_id",
            "agent_id",
            "tool_call",
            "source_id",
            "kinds",
            "sources",
            "tags_any",
            "window",
            "turns",
        ]
    )

    # Built once, outside `build` (see `metas`).
    names = st.lists(field, max_size=2, unique=True)
    item_kinds = st.lists(st.sampled_from(list(ItemKind)), min_size=1, max_size=2, unique=True)
    source_kinds = st.lists(st.sampled_from(list(SourceKind)), min_size=1, max_size=2, unique=True)
    tag_lists = st.lists(tags if tags is not None else value, min_size=1, max_size=2, unique=True)
    bound = st.none() | moment
    small = st.integers(0, 3)
    turn_range = turns if turns is not None else st.builds(TurnRange, first=small, last=small)

    @st.composite
    def build(draw: st.DrawFn) -> MetaFilter:
        fields: dict[str, object] = {"reach": draw(reach)}
        for name in draw(names):
            if name == "folder":
                fields["folder"] = draw(folder)
            elif name == "file_path":
                fields["file_path"] = draw(file_path)
            elif name == "source_id":
                fields["source_id"] = draw(source_id)
            elif name == "kinds":
                fields["kinds"] = draw(item_kinds)
            elif name == "sources":
                fields["sources"] = draw(source_kinds)
            elif name == "tags_any":
                fields["tags_any"] = draw(tag_lists)
            elif name == "window":
                fields["observed_after"] = draw(bound)
                fields["observed_before"] = draw(bound)
            elif name == "turns":
                fields["turns"] = draw(turn_range)
            else:
                fields[name] = draw(value)
        return MetaFilter.model_validate(fields)

    return build()


def fetch_modes() -> st.SearchStrategy[FetchMode]:
    """Each fetch mode, declared by the engine or not."""
    return st.sampled_from(list(FetchMode))


def facets() -> st.SearchStrategy[Facet]:
    """Each explore facet."""
    return st.sampled_from(list(Facet))


class EngineRequest(NamedTuple):
    """An operation name and the request an engine must refuse with `InvalidRequest`."""

    op: str
    request: object


def invalid_engine_requests(
    *, modes: Sequence[FetchMode] = tuple(FetchMode), ghost: str = "ghost"
) -> st.SearchStrategy[EngineRequest]:
    """Requests of contract-reference B6/B8 that every engine refuses with `InvalidRequest`
    before touching anything: zero limits, blank queries and ids, id counts out of range,
    explore bounds, cursors it never issued. Fetch requests use only `modes` (the
    declared ones: an undeclared mode is `Unsupported` first).

    Never an empty forget filter: an engine that wrongly accepted it would forget
    everything it holds, and the fuzzer must never clear a store.
    """
    blank = st.sampled_from(["", "  ", "\n"])
    options: list[st.SearchStrategy[EngineRequest]] = [
        st.just(EngineRequest("list", ListRequest(limit=0))),
        st.just(EngineRequest("list", ListRequest(limit=2, cursor=BAD_CURSOR))),
        st.builds(lambda q: EngineRequest("recall", RecallRequest(question=q, limit=3)), blank),
        st.just(EngineRequest("recall", RecallRequest(question="alpha", limit=0))),
        st.just(EngineRequest("forget", ForgetIds(ids=[]))),
        st.just(EngineRequest("get", GetRequest(ids=[]))),
        st.just(
            EngineRequest("get", GetRequest(ids=[f"{ghost}-{n}" for n in range(MAX_GET_IDS + 1)]))
        ),
        st.builds(lambda b: EngineRequest("get", GetRequest(ids=[f"{ghost}-0", b])), blank),
        st.builds(
            lambda facet, limit: EngineRequest("explore", ExploreRequest(facet=facet, limit=limit)),
            facets(),
            st.sampled_from([0, MAX_BUCKETS + 1]),
        ),
        st.builds(
            lambda scan: EngineRequest(
                "explore", ExploreRequest(facet=Facet.KIND, limit=10, scan_limit=scan)
            ),
            st.sampled_from([0, MAX_SCAN_LIMIT + 1]),
        ),
    ]
    if modes:
        mode = st.sampled_from(list(modes))
        options += [
            st.builds(
                lambda m, q: EngineRequest("fetch", FetchRequest(query=q, mode=m, limit=3)),
                mode,
                blank,
            ),
            st.builds(
                lambda m: EngineRequest("fetch", FetchRequest(query="alpha", mode=m, limit=0)), mode
            ),
            st.builds(
                lambda m: EngineRequest(
                    "fetch", FetchRequest(query="alpha", mode=m, limit=3, cursor=BAD_CURSOR)
                ),
                mode,
            ),
        ]
    return st.one_of(options)


# -- provider values --------------------------------------------------------------------


class ProviderEntry(NamedTuple):
    """The arguments of one `MemoryCore.store` call."""

    namespace: str
    key: str
    content: str
    category: MemoryCategory
    session_id: str | None
    taint: MemoryTaint


def provider_keys(
    *, alphabet: str = DEFAULT_KEY_ALPHABET, min_size: int = 1, max_size: int = 12
) -> st.SearchStrategy[str]:
    """Keys of `min_size..=max_size` characters of `alphabet`. Never blank by default: a
    store may refuse blank keys, and one that trims keys would read them back changed."""
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)


def provider_contents(
    *,
    alphabet: str | st.SearchStrategy[str] | None = None,
    min_size: int = 0,
    max_size: int = 40,
    words: bool = True,
) -> st.SearchStrategy[str]:
    """Entry contents: any Unicode text of `min_size..=max_size` by default, mixed with
    `word_texts()` (unless `words=False`) so recall queries find something."""
    free = texts(alphabet=alphabet, min_size=min_size, max_size=max_size)
    return (word_texts() | free) if words else free


def section_prefixes(
    *, known: bool = True, custom: st.SearchStrategy[str] | None = None
) -> st.SearchStrategy[str]:
    """Section prefixes: the seven known ones and custom names (default `[a-z0-9-]{1,8}`)."""
    options: list[st.SearchStrategy[str]] = []
    if known:
        options.append(st.sampled_from([section.prefix for section in MemorySection.known()]))
    options.append(
        custom
        if custom is not None
        else st.text(alphabet=string.ascii_lowercase + string.digits + "-", min_size=1, max_size=8)
    )
    return st.one_of(options)


def provider_namespaces(
    *,
    prefix: str = "",
    sections: st.SearchStrategy[str] | None = None,
    unsectioned: bool = True,
    scope_alphabet: str = DEFAULT_SCOPE_ALPHABET,
    max_segment_size: int = 8,
    max_segments: int = 2,
) -> st.SearchStrategy[str]:
    """Valid namespaces `<section>:<prefix>/<scope>` (and, when `unsectioned`, plain
    `<prefix>/<scope>`), each under `prefix` when one is given.

    The scope is 1..=`max_segments` `/`-separated segments of `scope_alphabet`. Widen
    the alphabet with any of `_ . : @ +` to exercise more of contract-reference A6 on a
    store that keeps namespaces verbatim; keep the result under 200 bytes.
    """
    segment = st.text(alphabet=scope_alphabet, min_size=1, max_size=max_segment_size).filter(
        lambda part: part not in (".", "..")
    )
    scope = st.lists(segment, min_size=1, max_size=max_segments).map("/".join)
    rooted = scope.map(lambda s: f"{prefix}/{s}" if prefix else s)
    section = sections if sections is not None else section_prefixes()
    sectioned = st.builds(lambda sec, s: f"{sec}:{s}", section, rooted)
    return (sectioned | rooted) if unsectioned else sectioned


_WHOLE_SCOPE_ALPHABET: Final = string.ascii_letters + string.digits + "-_.:@+"


def whole_provider_namespaces(*, prefix: str = "", most: int = 120) -> st.SearchStrategy[str]:
    """Valid namespaces over the contract's whole alphabet (contract-reference A6) under
    `prefix`: known and custom sections or none, up to six segments of any allowed
    character, empty and `.` segments among them, the scope at most `most` characters
    (the run root takes the rest of the 200 bytes)."""
    segment = st.text(alphabet=_WHOLE_SCOPE_ALPHABET, max_size=24).filter(lambda s: s != "..")
    scope = (
        st.lists(segment, min_size=1, max_size=6)
        .map("/".join)
        .filter(lambda s: s and not s.endswith("/") and len(s) <= most)
    )
    rooted = scope.map(lambda s: f"{prefix}/{s}" if prefix else s)
    sectioned = st.builds(lambda sec, s: f"{sec}:{s}", section_prefixes(), rooted)
    return sectioned | rooted


def invalid_provider_namespaces(*, prefix: str = "x") -> st.SearchStrategy[str]:
    """Namespaces breaking one rule of contract-reference A6 each (empty, over 200 bytes,
    a disallowed character, a `..` segment, a leading or trailing `/`), all but the
    empty one carrying `prefix` so whatever a lenient store keeps stays findable."""
    return st.one_of(
        st.just(""),
        st.just(f"{prefix}/" + "x" * MAX_NAMESPACE_LEN),
        st.sampled_from([" ", "é", "#", "\n", "*", "~", "%"]).map(lambda c: f"{prefix}/a{c}b"),
        st.just(f"{prefix}/../x"),
        st.just(f"/{prefix}/x"),
        st.just(f"{prefix}/x/"),
    )


def categories(
    *, custom_names: st.SearchStrategy[str] | None = None
) -> st.SearchStrategy[MemoryCategory]:
    """Core, daily, conversation, and custom categories named from `custom_names`
    (default `[a-z]{0,6}`; the empty name is `custom:`)."""
    names = (
        custom_names
        if custom_names is not None
        else st.text(alphabet=string.ascii_lowercase, max_size=6)
    )
    return st.sampled_from(
        [MemoryCategory.CORE, MemoryCategory.DAILY, MemoryCategory.CONVERSATION]
    ) | names.map(MemoryCategory.custom)


def taints() -> st.SearchStrategy[MemoryTaint]:
    """Both taints."""
    return st.sampled_from(list(MemoryTaint))


def session_ids(*, ids: Sequence[str] = ("s1", "s2")) -> st.SearchStrategy[str | None]:
    """No session, or one from a small pool (so session filters match)."""
    return st.none() | st.sampled_from(list(ids))


def provider_entries(
    *,
    namespaces: st.SearchStrategy[str] | None = None,
    keys: st.SearchStrategy[str] | None = None,
    contents: st.SearchStrategy[str] | None = None,
    category: st.SearchStrategy[MemoryCategory] | None = None,
    sessions: st.SearchStrategy[str | None] | None = None,
) -> st.SearchStrategy[ProviderEntry]:
    """The arguments of a valid `store` call."""
    return st.builds(
        ProviderEntry,
        namespace=namespaces if namespaces is not None else provider_namespaces(),
        key=keys if keys is not None else provider_keys(),
        content=contents if contents is not None else provider_contents(),
        category=category if category is not None else categories(),
        session_id=sessions if sessions is not None else session_ids(),
        taint=taints(),
    )


def recall_options(
    *,
    namespaces: st.SearchStrategy[str | None] | None = None,
    category: st.SearchStrategy[MemoryCategory] | None = None,
    sessions: st.SearchStrategy[str | None] | None = None,
) -> st.SearchStrategy[OwnedRecallOpts]:
    """Recall filters: a namespace (or none, meaning `global`), optionally a category,
    a session and a minimum score; `cross_session` off (it may add hits of other
    sessions that no entry written here accounts for)."""
    return st.builds(
        OwnedRecallOpts,
        namespace=namespaces if namespaces is not None else st.none() | st.just(GLOBAL_NAMESPACE),
        category=st.none() | (category if category is not None else categories()),
        session_id=sessions if sessions is not None else session_ids(),
        min_score=st.none() | st.floats(min_value=0.0, max_value=1.0),
        cross_session=st.just(False),
    )
