"""Hypothesis strategies for engine-profile values (shared by the engine tests)."""

from __future__ import annotations

from datetime import UTC

from hypothesis import strategies as st

from conformance.engine import (
    Conversation,
    Document,
    DocumentBody,
    Learning,
    LearningKind,
    MemoryMeta,
    Namespace,
    ObservedActor,
    Role,
    Segment,
    SegmentKind,
    SourceKind,
    SourceRef,
    StoreItem,
    Timestamp,
    ToolCallRef,
    Turn,
    TurnRange,
    f32_wire,
)
from conformance.engine.blank import is_blank

# Rust strings hold Unicode scalar values only: no lone surrogates.
texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
non_blank_texts = texts.filter(lambda text: not is_blank(text))
optional_texts = st.none() | texts

segment_ids = st.from_regex(r"[A-Za-z0-9_-]{1,128}", fullmatch=True)
segment_kinds = st.sampled_from(list(SegmentKind))
segments = st.builds(Segment, segment_kinds, segment_ids)
namespaces = st.lists(segments, max_size=8).map(Namespace)

utc_times = st.datetimes(timezones=st.just(UTC))

# Instants the contract can carry and a datetime cannot: any nanosecond of years 1..9999.
nano_times = st.integers(
    min_value=Timestamp.parse("0001-01-01T00:00:00Z").nanos,
    max_value=Timestamp.parse("9999-12-31T23:59:59.999999999Z").nanos,
).map(Timestamp)
any_times = utc_times | nano_times

# Confidences as an f32 reads them back, so a JSON round trip gives the same float.
confidences = st.floats(min_value=0.0, max_value=1.0).map(f32_wire)

tool_calls = st.builds(ToolCallRef, name=texts, id=optional_texts)
turn_ranges = st.builds(
    TurnRange,
    first=st.integers(0, 2**32 - 1),
    last=st.integers(0, 2**32 - 1),
)

metas = st.builds(
    MemoryMeta,
    namespace=namespaces,
    workspace=optional_texts,
    folder=optional_texts,
    file_path=optional_texts,
    language=optional_texts,
    repo=optional_texts,
    commit=optional_texts,
    url=optional_texts,
    thread_id=optional_texts,
    turns=st.none() | turn_ranges,
    agent_id=optional_texts,
    tool_call=st.none() | tool_calls,
    source=st.builds(SourceRef, kind=st.sampled_from(list(SourceKind)), id=optional_texts),
    tags=st.lists(texts, max_size=3),
    observed_at=st.none() | any_times,
    derive=st.none() | st.booleans(),
    observed_actor=st.none() | st.builds(ObservedActor, id=texts, name=optional_texts),
)

turns = st.builds(
    Turn,
    role=st.sampled_from(list(Role)),
    text=non_blank_texts,
    at=st.none() | any_times,
    tool_calls=st.lists(tool_calls, max_size=2),
)

documents = st.builds(
    Document,
    title=optional_texts,
    body=st.builds(DocumentBody, text=non_blank_texts),
    mime=optional_texts,
    meta=metas,
)
conversations = st.builds(Conversation, turns=st.lists(turns, min_size=1, max_size=3), meta=metas)
learnings = st.builds(
    Learning,
    text=non_blank_texts,
    learning_kind=st.sampled_from(list(LearningKind)),
    confidence=confidences,
    evidence=optional_texts,
    meta=metas,
)

valid_items: st.SearchStrategy[StoreItem] = st.one_of(documents, conversations, learnings)
