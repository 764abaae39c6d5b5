"""Times written as a driver speaking JSON may write them: at a UTC offset other than `Z`."""

from __future__ import annotations

from conformance.timestamps import Timestamp

_NANOS_PER_MINUTE = 60 * 1_000_000_000


def at_offset(moment: Timestamp, minutes: int) -> str:
    """`moment` as RFC 3339 text at a UTC offset of `minutes`: the same instant, every
    fractional digit kept (`07:08:09.5Z` at +330 is `12:38:09.5+05:30`). An instant whose
    local time would leave the years 0000 to 9999 is written at `+00:00`."""
    try:
        local = Timestamp(moment.nanos + minutes * _NANOS_PER_MINUTE).rfc3339()
    except ValueError:
        local, minutes = moment.rfc3339(), 0
    hours, rest = divmod(abs(minutes), 60)
    return f"{local.removesuffix('Z')}{'-' if minutes < 0 else '+'}{hours:02d}:{rest:02d}"
