"""`rfc3339_instant`: RFC 3339 date-times with an offset, exact to the nanosecond, and
nothing looser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conformance.checks.timestamps import rfc3339_instant
from conformance.timestamps import Timestamp

NOON = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2024-05-01T12:00:00Z", NOON),
        ("2024-05-01t12:00:00z", NOON),
        ("2024-05-01 12:00:00Z", NOON),
        ("2024-05-01T14:00:00+02:00", NOON),
        ("2024-05-01T06:30:00-05:30", NOON),
        ("2024-05-01T12:00:00.250Z", NOON.replace(microsecond=250_000)),
        ("2024-05-01T12:00:00.123456789+00:00", Timestamp.parse("2024-05-01T12:00:00.123456789Z")),
        ("1970-01-01T00:00:00Z", datetime(1970, 1, 1, tzinfo=UTC)),
        ("2016-12-31T23:59:60Z", datetime(2016, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ],
)
def test_valid_times_read_as_their_instant(text: str, instant: datetime | Timestamp) -> None:
    assert rfc3339_instant(text) == instant


def test_a_timestamp_is_its_own_instant_and_a_naive_datetime_none() -> None:
    stamp = Timestamp.parse("2024-05-01T12:00:00.000000001Z")
    assert rfc3339_instant(stamp) is stamp
    assert rfc3339_instant(datetime(2024, 5, 1, 12)) is None


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-01T12:00:00",  # no zone
        "2024-05-01 12:00:00",
        "2024-05-01",
        "2024-05-01T12:00Z",  # no seconds
        "2024-02-30T12:00:00Z",  # no such day
        "2024-05-01T24:00:00Z",
        "2024-05-01T12:00:00+0200",  # offset without its colon
        "2024-05-01T12:00:00+24:00",
        "20240501T120000Z",
        "２０２４-05-01T12:00:00Z",  # digits of another script
        " 2024-05-01T12:00:00Z",
        "",
        None,
        1714564800,
    ],
)
def test_anything_else_is_none(text: object) -> None:
    assert rfc3339_instant(text) is None
