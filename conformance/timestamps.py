"""Timestamps as the contract carries them: UTC instants exact to the nanosecond.

The contract's times are RFC 3339 texts of a `DateTime<Utc>`: up to nine fractional
digits, written back with the automatic precision of the Rust side (no fraction when it
is zero, else 3, 6 or 9 digits) and `Z`. A Python `datetime` holds microseconds, so it
would drop digits, change the JSON and with it an item's fingerprint. `Timestamp` holds
nanoseconds since the Unix epoch instead; models take a `Timestamp`, an aware `datetime`
or an RFC 3339 text, and write the contract's text.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

__all__ = ["Timestamp", "TimestampLike", "rfc3339"]

_NANOS_PER_SECOND: Final = 1_000_000_000
_NANOS_PER_DAY: Final = 86_400 * _NANOS_PER_SECOND

# RFC 3339 `date-time`: `T`, `t` or a space between date and time (section 5.6 allows
# the space), a fraction of any length it can hold, `Z`, `z` or a numeric offset.
_RFC3339: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    # Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm),
    # so year 0000, which `datetime` cannot hold, is still exact.
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719_468
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + (3 if shifted_month < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


_MIN_NANOS: Final = _days_from_civil(0, 1, 1) * _NANOS_PER_DAY
_MAX_NANOS: Final = (_days_from_civil(9999, 12, 31) + 1) * _NANOS_PER_DAY - 1
_DATETIME_MIN_NANOS: Final = _days_from_civil(1, 1, 1) * _NANOS_PER_DAY
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


class Timestamp:
    """One instant in UTC, exact to the nanosecond; immutable, ordered and hashable.

    Build one from an aware `datetime` (`Timestamp.from_datetime`), from RFC 3339 text
    (`Timestamp.parse`) or from nanoseconds since the Unix epoch (`Timestamp(nanos)`).
    `rfc3339()` writes the contract's form. A timestamp equals an aware `datetime` naming
    the same instant and orders against one, so `meta.observed_at == datetime(...)` reads
    as expected; `to_datetime()` gives a `datetime` (to the microsecond) for other code.
    Years 0000 to 9999, as RFC 3339 has them.
    """

    __slots__ = ("_hash", "_nanos", "_text")

    _nanos: int
    _text: str | None
    _hash: int | None

    def __init__(self, nanos: int) -> None:
        """The instant `nanos` nanoseconds after 1970-01-01T00:00:00Z (negative: before)."""
        if isinstance(nanos, bool) or not isinstance(nanos, int):
            raise TypeError(f"a timestamp is built from integer nanoseconds, not {nanos!r}")
        if not _MIN_NANOS <= nanos <= _MAX_NANOS:
            raise ValueError("a timestamp must lie in the years 0000 to 9999")
        object.__setattr__(self, "_nanos", nanos)
        object.__setattr__(self, "_text", None)
        object.__setattr__(self, "_hash", None)

    # -- constructors -------------------------------------------------------------------

    @classmethod
    def from_datetime(cls, moment: datetime) -> Timestamp:
        """The instant an aware `datetime` names; `ValueError` for a naive one."""
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ValueError("a timestamp needs a timezone; the datetime is naive")
        delta = moment - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return cls(micros * 1_000)

    @classmethod
    def parse(cls, text: str) -> Timestamp:
        """The instant an RFC 3339 `date-time` names; `ValueError` saying what is wrong.

        Accepts `T`, `t` or a space between date and time, a fraction of 1 to 9 digits,
        and `Z`, `z` or an offset `+hh:mm` / `-hh:mm`, which is converted to UTC. A leap
        second (`:60`), which the Rust side reads too, is held as the second before it:
        an instant count has no room for it.
        """
        return _parsed(text)

    @classmethod
    def of(cls, value: TimestampLike) -> Timestamp:
        """`value` as a timestamp: a `Timestamp` as is, an aware `datetime`, or RFC 3339 text."""
        if isinstance(value, Timestamp):
            return value
        if isinstance(value, datetime):
            return cls.from_datetime(value)
        if isinstance(value, str):
            return cls.parse(value)
        raise TypeError(
            f"a timestamp is a Timestamp, an aware datetime or RFC 3339 text, not {value!r}"
        )

    # -- views --------------------------------------------------------------------------

    @property
    def nanos(self) -> int:
        """Nanoseconds since 1970-01-01T00:00:00Z."""
        return self._nanos

    def rfc3339(self) -> str:
        """The contract's text: seconds always, a fraction only when it is not zero, as 3,
        6 or 9 digits (the fewest that hold it), then `Z` (`2025-05-06T07:08:09.120Z`)."""
        text = self._text
        if text is None:
            text = self._format()
            object.__setattr__(self, "_text", text)
        return text

    def _format(self) -> str:
        days, rest = divmod(self._nanos, _NANOS_PER_DAY)
        seconds, fraction = divmod(rest, _NANOS_PER_SECOND)
        year, month, day = _civil_from_days(days)
        hour, seconds = divmod(seconds, 3_600)
        minute, second = divmod(seconds, 60)
        if fraction == 0:
            digits = ""
        elif fraction % 1_000_000 == 0:
            digits = f".{fraction // 1_000_000:03d}"
        elif fraction % 1_000 == 0:
            digits = f".{fraction // 1_000:06d}"
        else:
            digits = f".{fraction:09d}"
        return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{digits}Z"

    def to_datetime(self) -> datetime:
        """An aware UTC `datetime`, cut to the microsecond (`datetime` holds no less);
        `ValueError` for year 0000, which `datetime` cannot hold."""
        days, rest = divmod(self._nanos // 1_000, 86_400_000_000)
        year, month, day = _civil_from_days(days)
        if year < 1:
            raise ValueError(f"{self.rfc3339()} lies before the years a datetime holds")
        seconds, micros = divmod(rest, 1_000_000)
        hour, seconds = divmod(seconds, 3_600)
        minute, second = divmod(seconds, 60)
        return datetime(year, month, day, hour, minute, second, micros, tzinfo=UTC)

    # -- value semantics ----------------------------------------------------------------

    def _other_nanos(self, other: object) -> int | None:
        if isinstance(other, Timestamp):
            return other._nanos
        if isinstance(other, datetime) and other.utcoffset() is not None:
            return Timestamp.from_datetime(other)._nanos
        return None

    def __eq__(self, other: object) -> bool:
        theirs = self._other_nanos(other)
        return NotImplemented if theirs is None else self._nanos == theirs

    def __lt__(self, other: object) -> bool:
        theirs = self._other_nanos(other)
        return NotImplemented if theirs is None else self._nanos < theirs

    def __le__(self, other: object) -> bool:
        theirs = self._other_nanos(other)
        return NotImplemented if theirs is None else self._nanos <= theirs

    def __gt__(self, other: object) -> bool:
        theirs = self._other_nanos(other)
        return NotImplemented if theirs is None else self._nanos > theirs

    def __ge__(self, other: object) -> bool:
        theirs = self._other_nanos(other)
        return NotImplemented if theirs is None else self._nanos >= theirs

    def __hash__(self) -> int:
        cached = self._hash
        if cached is None:
            # Equal to an aware datetime naming the same instant, so it must hash as one;
            # no datetime names a sub-microsecond instant, so those hash their nanoseconds.
            if self._nanos % 1_000 == 0 and self._nanos >= _DATETIME_MIN_NANOS:
                cached = hash(self.to_datetime())
            else:
                cached = hash(self._nanos)
            object.__setattr__(self, "_hash", cached)
        return cached

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Timestamp is immutable")

    def __reduce__(self) -> tuple[type[Timestamp], tuple[int]]:
        return Timestamp, (self._nanos,)

    def __str__(self) -> str:
        return self.rfc3339()

    def __repr__(self) -> str:
        return f"Timestamp.parse({self.rfc3339()!r})"

    # -- pydantic -----------------------------------------------------------------------

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                Timestamp.rfc3339, when_used="json"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "date-time"}


def _validate(value: Any) -> Timestamp:
    # TypeError is not a validation error to pydantic; the message is what a user sees.
    try:
        return Timestamp.of(value)
    except TypeError as error:
        raise ValueError(str(error)) from None


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Timestamp:
    # A timestamp is immutable, so one instance serves every reading of the same text:
    # the kit reads the same entries' times over and over, and the parse is all Python.
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not an RFC 3339 timestamp (like 2025-05-06T07:08:09.123Z, "
            "with an offset or Z)"
        )
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    fraction, zulu, sign, offset_hours, offset_minutes = match.groups()[6:]
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        raise ValueError(f"{text!r} names no calendar date")
    if hour > 23 or minute > 59 or second > 60:
        raise ValueError(f"{text!r} names no time of day")
    second = min(second, 59)
    if fraction is not None and len(fraction) > 9:
        raise ValueError(f"{text!r} has more than 9 fractional digits (nanoseconds)")
    offset = 0
    if zulu is None:
        if int(offset_hours) > 23 or int(offset_minutes) > 59:
            raise ValueError(f"{text!r} has an offset out of range")
        offset = (int(offset_hours) * 60 + int(offset_minutes)) * 60
        offset = -offset if sign == "-" else offset
    seconds = _days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60
    nanos = (seconds + second - offset) * _NANOS_PER_SECOND
    if fraction is not None:
        nanos += int(fraction.ljust(9, "0"))
    try:
        return Timestamp(nanos)
    except ValueError:
        raise ValueError(f"{text!r} lies outside the years 0000 to 9999 in UTC") from None


TimestampLike = Timestamp | datetime | str
"""What a model field holding a timestamp accepts."""


def rfc3339(moment: TimestampLike) -> str:
    """`moment` in the contract's RFC 3339 form (see `Timestamp.rfc3339`)."""
    return Timestamp.of(moment).rfc3339()
