"""Reading the timestamps a driver returns: RFC 3339, with an offset, nothing looser."""

from __future__ import annotations

from conformance.timestamps import Timestamp

__all__ = ["rfc3339_instant"]


def rfc3339_instant(value: object) -> Timestamp | None:
    """The instant `value` denotes, or None unless it is one.

    A `Timestamp` is one already (a model field read the driver's RFC 3339 text into
    it); text must be an RFC 3339 date-time with an offset (`Z` or `±hh:mm`), read exactly
    as `Timestamp.parse` reads it: a time without a zone, a date alone or an impossible
    date (`2025-02-30`) is None. Anything else (a naive `datetime` a driver put in without
    validation, a number) is None.
    """
    if isinstance(value, Timestamp):
        return value
    if not isinstance(value, str):
        return None
    try:
        return Timestamp.parse(value)
    except ValueError:
        return None
