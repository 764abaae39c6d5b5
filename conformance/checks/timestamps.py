"""Reading the timestamps a driver returns: RFC 3339, with an offset, nothing looser."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Final

__all__ = ["rfc3339_instant"]

# RFC 3339 §5.6 date-time; "t"/"z" in either case and a space for "T" (its §5.6 note).
# ASCII digits only: `\d` would take other scripts' digits too.
_RFC3339: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)


def rfc3339_instant(text: object) -> datetime | None:
    """The instant `text` denotes, in UTC, or None unless it is an RFC 3339 date-time with
    an offset (`Z` or `±hh:mm`): a time without a zone, a date alone, or an impossible
    date (`2025-02-30`) is None. A leap second (`:60`) reads as the second before."""
    if not isinstance(text, str):
        return None
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, zulu, sign, off_h, off_m = match.groups()[6:]
    if second > 60 or (not zulu and (int(off_h) > 23 or int(off_m) > 59)):
        return None
    micros = round(float(fraction) * 1_000_000) if fraction else 0
    offset = timedelta(0) if zulu else timedelta(hours=int(off_h), minutes=int(off_m))
    try:
        moment = datetime(
            year,
            month,
            day,
            hour,
            minute,
            min(second, 59),
            min(micros, 999_999),
            timezone(-offset if sign == "-" else offset),
        )
    except ValueError:
        return None
    return moment.astimezone(UTC)
