"""UTC timestamps as the contract carries them: RFC 3339 with ``Z``, like chrono."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, PlainSerializer


def to_utc(moment: datetime) -> datetime:
    """``moment`` moved to UTC (the contract holds ``DateTime<Utc>``)."""
    if moment.tzinfo is UTC:
        return moment
    return moment.astimezone(UTC)


def rfc3339(moment: datetime) -> str:
    """``moment`` as chrono serialises a UTC time: seconds always, a fraction only when
    non-zero as 3 or 6 digits, and ``Z`` (``2025-05-06T07:08:09Z``)."""
    moment = to_utc(moment)
    micros = moment.microsecond
    if micros == 0:
        fraction = ""
    elif micros % 1000 == 0:
        fraction = f".{micros // 1000:03d}"
    else:
        fraction = f".{micros:06d}"
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{fraction}Z"
    )


UtcDateTime = Annotated[
    AwareDatetime,
    AfterValidator(to_utc),
    PlainSerializer(rfc3339, return_type=str, when_used="json"),
]
"""A timezone-aware time, held in UTC, written RFC 3339 with ``Z`` on the wire."""
