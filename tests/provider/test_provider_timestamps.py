"""Provider timestamps (entries, summaries, export records) exact to the nanosecond."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from conformance.provider import (
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    NamespaceSummary,
    Timestamp,
    entry_record,
)

PRECISIONS = [
    ("2025-05-06T07:08:09Z", "2025-05-06T07:08:09Z"),
    ("2025-05-06T07:08:09.120Z", "2025-05-06T07:08:09.120Z"),
    ("2025-05-06T07:08:09.123400Z", "2025-05-06T07:08:09.123400Z"),
    ("2025-05-06T07:08:09.123456789Z", "2025-05-06T07:08:09.123456789Z"),
    ("2025-05-06T09:08:09.123456789+02:00", "2025-05-06T07:08:09.123456789Z"),
    ("2025-05-06T07:08:09.000000+00:00", "2025-05-06T07:08:09Z"),
]


def entry(timestamp: str | Timestamp | datetime) -> MemoryEntry:
    return MemoryEntry(
        id="i",
        key="k",
        content="c",
        namespace="n",
        category=MemoryCategory.CORE,
        timestamp=timestamp,
        taint=MemoryTaint.EXTERNAL_SYNC,
    )


@pytest.mark.parametrize(("given", "written"), PRECISIONS)
def test_entry_timestamps_keep_every_digit_on_the_wire(given: str, written: str) -> None:
    decoded = MemoryEntry.model_validate_json(entry(given).model_dump_json())
    assert json.loads(decoded.model_dump_json())["timestamp"] == written
    assert decoded.timestamp == Timestamp.parse(given)


@pytest.mark.parametrize(("given", "written"), PRECISIONS)
def test_summary_last_updated_keeps_every_digit(given: str, written: str) -> None:
    summary = NamespaceSummary(namespace="n", count=1, last_updated=given)
    assert json.loads(summary.model_dump_json())["last_updated"] == written
    assert NamespaceSummary.model_validate_json(summary.model_dump_json()) == summary


@pytest.mark.parametrize(("given", "written"), PRECISIONS)
def test_the_export_record_carries_the_exact_text(given: str, written: str) -> None:
    record = entry_record(entry(given))
    assert isinstance(record.payload, dict)
    assert record.payload["timestamp"] == written


def test_entries_a_nanosecond_apart_differ_and_order() -> None:
    early = entry("2025-05-06T07:08:09.123456788Z")
    late = entry("2025-05-06T07:08:09.123456789Z")
    assert early != late
    assert early.timestamp < late.timestamp


def test_a_datetime_is_accepted_and_a_text_without_offset_refused() -> None:
    moment = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
    assert entry(moment).timestamp == Timestamp.parse("2025-05-06T07:08:09Z")
    with pytest.raises(ValueError, match="not an RFC 3339 timestamp"):
        entry("2025-05-06 07:08:09")
