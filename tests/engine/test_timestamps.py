"""Timestamps exact to the nanosecond: parse, print, compare, and every model carrying one.

The contract's times are RFC 3339 with up to nine fractional digits, written back with
the automatic precision of the Rust side: no fraction when it is zero, else the fewest
of 3, 6 or 9 digits that hold it, and `Z` after converting any offset to UTC.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.engine import (
    MemoryMeta,
    MetaFilter,
    Role,
    Timestamp,
    Turn,
    canonical_text,
    conversation,
    document,
    fingerprint,
    rfc3339,
    to_wire,
)

# (text in, text out): each precision, trailing zeros dropped to the next one down.
GOLDEN_TEXTS = [
    ("2025-05-06T07:08:09Z", "2025-05-06T07:08:09Z"),
    ("2025-05-06T07:08:09.000000000Z", "2025-05-06T07:08:09Z"),
    ("2025-05-06T07:08:09.123Z", "2025-05-06T07:08:09.123Z"),
    ("2025-05-06T07:08:09.1Z", "2025-05-06T07:08:09.100Z"),
    ("2025-05-06T07:08:09.120000Z", "2025-05-06T07:08:09.120Z"),
    ("2025-05-06T07:08:09.123456Z", "2025-05-06T07:08:09.123456Z"),
    ("2025-05-06T07:08:09.1234Z", "2025-05-06T07:08:09.123400Z"),
    ("2025-05-06T07:08:09.000001Z", "2025-05-06T07:08:09.000001Z"),
    ("2025-05-06T07:08:09.123456789Z", "2025-05-06T07:08:09.123456789Z"),
    ("2025-05-06T07:08:09.1234567Z", "2025-05-06T07:08:09.123456700Z"),
    ("2025-05-06T07:08:09.000000001Z", "2025-05-06T07:08:09.000000001Z"),
    # Offsets become Z; the instant is kept, to the nanosecond.
    ("2025-05-06T09:08:09.123456789+02:00", "2025-05-06T07:08:09.123456789Z"),
    ("2025-05-06T01:38:09.5-05:30", "2025-05-06T07:08:09.500Z"),
    ("2025-05-06T07:08:09+00:00", "2025-05-06T07:08:09Z"),
    ("2025-05-06T07:08:09-00:00", "2025-05-06T07:08:09Z"),
    ("2025-01-01T00:30:00.000000001+01:00", "2024-12-31T23:30:00.000000001Z"),
    # RFC 3339 allows lower case letters and a space between date and time.
    ("2025-05-06t07:08:09.25z", "2025-05-06T07:08:09.250Z"),
    ("2025-05-06 07:08:09Z", "2025-05-06T07:08:09Z"),
    # Calendar edges.
    ("2024-02-29T23:59:59.999999999Z", "2024-02-29T23:59:59.999999999Z"),
    ("1969-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.999999999Z"),
    ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"),
    ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"),
    ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
]


@pytest.mark.parametrize(("given_text", "written"), GOLDEN_TEXTS)
def test_parse_then_print_uses_the_automatic_precision(given_text: str, written: str) -> None:
    stamp = Timestamp.parse(given_text)
    assert stamp.rfc3339() == written
    assert str(stamp) == written
    assert Timestamp.parse(written) == stamp


def test_a_leap_second_is_held_as_the_second_before() -> None:
    assert Timestamp.parse("2016-12-31T23:59:60.5Z").rfc3339() == "2016-12-31T23:59:59.500Z"


def test_nanoseconds_since_the_epoch() -> None:
    assert Timestamp.parse("1970-01-01T00:00:00.000000001Z").nanos == 1
    assert Timestamp.parse("1969-12-31T23:59:59.999999999Z").nanos == -1
    assert Timestamp.parse("2025-05-06T07:08:09.123456789Z").nanos == 1_746_515_289_123_456_789
    assert Timestamp(1_746_515_289_123_456_789).rfc3339() == "2025-05-06T07:08:09.123456789Z"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2025-05-06T07:08:09", "not an RFC 3339 timestamp"),  # no offset
        ("2025-05-06", "not an RFC 3339 timestamp"),
        ("2025-5-6T07:08:09Z", "not an RFC 3339 timestamp"),
        ("2025-05-06T07:08:09.Z", "not an RFC 3339 timestamp"),
        ("2025-05-06T07:08:09+0200", "not an RFC 3339 timestamp"),
        ("２０２５-05-06T07:08:09Z", "not an RFC 3339 timestamp"),  # fullwidth digits
        ("2025-05-06T07:08:09.1234567891Z", "more than 9 fractional digits"),
        ("2025-02-29T00:00:00Z", "names no calendar date"),
        ("2025-13-01T00:00:00Z", "names no calendar date"),
        ("2025-05-00T00:00:00Z", "names no calendar date"),
        ("2025-05-06T24:00:00Z", "names no time of day"),
        ("2016-12-31T23:59:61Z", "names no time of day"),
        ("2025-05-06T07:08:09+24:00", "offset out of range"),
        ("0000-01-01T00:00:00+00:01", "outside the years 0000 to 9999"),
        ("9999-12-31T23:59:59-00:01", "outside the years 0000 to 9999"),
    ],
)
def test_malformed_text_is_refused_saying_why(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Timestamp.parse(text)


def test_a_datetime_is_taken_exactly_and_a_naive_one_refused() -> None:
    moment = datetime(2025, 5, 6, 9, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2)))
    assert Timestamp.from_datetime(moment).rfc3339() == "2025-05-06T07:08:09.123456Z"
    with pytest.raises(ValueError, match="naive"):
        Timestamp.from_datetime(datetime(2025, 5, 6))
    with pytest.raises(TypeError):
        Timestamp.of(1_746_515_289)  # type: ignore[arg-type]


def test_to_datetime_cuts_to_the_microsecond() -> None:
    stamp = Timestamp.parse("2025-05-06T07:08:09.123456789Z")
    assert stamp.to_datetime() == datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    assert Timestamp.parse("1969-12-31T23:59:59.999999999Z").to_datetime() == datetime(
        1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC
    )
    with pytest.raises(ValueError, match="before the years a datetime holds"):
        Timestamp.parse("0000-06-01T00:00:00Z").to_datetime()


class TestOrderAndEquality:
    def test_a_nanosecond_apart_is_different_and_ordered(self) -> None:
        early = Timestamp.parse("2025-05-06T07:08:09.123456788Z")
        late = Timestamp.parse("2025-05-06T07:08:09.123456789Z")
        assert early != late
        assert early < late and late > early and early <= late and late >= early
        assert sorted([late, early]) == [early, late]
        assert len({early, late}) == 2

    def test_one_instant_written_with_two_offsets_is_one_timestamp(self) -> None:
        a = Timestamp.parse("2025-05-06T09:08:09.000000001+02:00")
        b = Timestamp.parse("2025-05-06T07:08:09.000000001Z")
        assert a == b and hash(a) == hash(b)

    def test_equal_to_an_aware_datetime_naming_the_same_instant(self) -> None:
        moment = datetime(2025, 5, 6, 7, 8, 9, 250000, tzinfo=UTC)
        stamp = Timestamp.parse("2025-05-06T09:08:09.25+02:00")
        assert stamp == moment and moment == stamp
        assert hash(stamp) == hash(moment)
        assert stamp in {moment}
        assert Timestamp.parse("2025-05-06T07:08:09.250000001Z") != moment
        assert Timestamp.parse("2025-05-06T07:08:09.250000001Z") > moment
        assert stamp != "2025-05-06T07:08:09.250Z"  # text is not an instant
        assert stamp != datetime(2025, 5, 6, 7, 8, 9, 250000)  # naive: no instant

    def test_immutable_and_picklable(self) -> None:
        stamp = Timestamp.parse("2025-05-06T07:08:09.123456789Z")
        with pytest.raises(AttributeError):
            stamp._nanos = 0  # type: ignore[misc]
        assert pickle.loads(pickle.dumps(stamp)) == stamp
        assert eval(repr(stamp), {"Timestamp": Timestamp}) == stamp


NANOS = st.integers(
    min_value=Timestamp.parse("0000-01-01T00:00:00Z").nanos,
    max_value=Timestamp.parse("9999-12-31T23:59:59.999999999Z").nanos,
)


@given(NANOS)
def test_any_instant_round_trips_through_its_text(nanos: int) -> None:
    text = Timestamp(nanos).rfc3339()
    assert Timestamp.parse(text).nanos == nanos
    fraction = text[20:-1]
    assert len(fraction) in (0, 3, 6, 9) and not fraction.endswith("000")


@given(st.datetimes(timezones=st.just(UTC)))
def test_microsecond_instants_print_as_datetime_reads_them(moment: datetime) -> None:
    stamp = Timestamp.from_datetime(moment)
    assert stamp.to_datetime() == moment
    assert datetime.fromisoformat(stamp.rfc3339()) == moment


# -- the engine models ---------------------------------------------------------------

NINE = "2025-05-06T07:08:09.123456789Z"
NINE_PLUS_ONE = "2025-05-06T07:08:09.123456790Z"


@pytest.mark.parametrize(("given_text", "written"), GOLDEN_TEXTS)
def test_meta_json_keeps_every_digit(given_text: str, written: str) -> None:
    meta = MemoryMeta.model_validate_json(json.dumps({"observed_at": given_text}))
    assert to_wire(meta)["observed_at"] == written
    assert MemoryMeta.model_validate_json(meta.model_dump_json()) == meta


@pytest.mark.parametrize(("given_text", "written"), GOLDEN_TEXTS)
def test_turn_times_reach_the_canonical_json_exactly(given_text: str, written: str) -> None:
    item = conversation([Turn(role=Role.USER, text="hi", at=given_text)])
    canonical = (
        '{"type":"conversation","turns":[{"role":"user","text":"hi","at":"'
        + written
        + '"}],"meta":{"source":{"kind":"agent"}}}'
    )
    assert canonical_text(item) == canonical
    assert fingerprint(item) == hashlib.sha256(canonical.encode()).hexdigest()[:40]
    assert to_wire(item)["turns"][0]["at"] == written


def test_golden_fingerprints_at_each_precision() -> None:
    # Pinned so a change to how times print (which changes identities) cannot pass unseen.
    golden = {
        "2025-05-06T07:08:09Z": "678d2e4677a9349c09165dfc5a15df598f048650",
        "2025-05-06T07:08:09.123Z": "e755a7558abca72b727f599d37d7f964f3c3ff92",
        "2025-05-06T07:08:09.123456Z": "4b0abcf11de8a8314ccb633e3462344c75019282",
        NINE: "3d6c6ef676aa34fafad261383cf174e18ac32594",
    }
    got = {at: conversation([Turn(role=Role.USER, text="x", at=at)]).fingerprint() for at in golden}
    assert got == golden


def test_a_sub_microsecond_difference_makes_two_items() -> None:
    first = conversation([Turn(role=Role.USER, text="x", at=NINE)])
    second = conversation([Turn(role=Role.USER, text="x", at=NINE_PLUS_ONE)])
    assert first.fingerprint() != second.fingerprint()
    # A datetime would have cut both to .123456 and made them one item.
    cut = datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    assert conversation([Turn(role=Role.USER, text="x", at=cut)]).fingerprint() not in {
        first.fingerprint(),
        second.fingerprint(),
    }


def test_one_instant_with_an_offset_is_the_same_item() -> None:
    utc = conversation([Turn(role=Role.USER, text="x", at=NINE)])
    offset = conversation(
        [Turn(role=Role.USER, text="x", at="2025-05-06T08:08:09.123456789+01:00")]
    )
    assert utc.fingerprint() == offset.fingerprint()


def test_observed_at_is_exact_in_json_but_left_out_of_identity() -> None:
    a = document("note", MemoryMeta(observed_at=NINE))
    b = document("note", MemoryMeta(observed_at=NINE_PLUS_ONE))
    assert to_wire(a)["meta"]["observed_at"] == NINE
    assert a != b
    assert a.fingerprint() == b.fingerprint()


def test_a_datetime_is_still_accepted_on_every_field() -> None:
    moment = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
    meta = MemoryMeta(observed_at=moment)
    turn = Turn(role=Role.USER, text="x", at=moment)
    window = MetaFilter(observed_after=moment, observed_before=moment + timedelta(seconds=1))
    assert meta.observed_at == moment and isinstance(meta.observed_at, Timestamp)
    assert turn.at == moment
    assert to_wire(window) == {
        "observed_after": "2025-05-06T07:08:09Z",
        "observed_before": "2025-05-06T07:08:10Z",
    }
    assert rfc3339(moment) == "2025-05-06T07:08:09Z"


class TestWindowIsExactAtTheNanosecond:
    def admits(self, window: dict[str, str], observed: str) -> bool:
        meta = MemoryMeta(observed_at=observed)
        return MetaFilter.model_validate(window).matches(document("x").kind, meta)

    def test_lower_bound_is_inclusive_to_the_nanosecond(self) -> None:
        assert self.admits({"observed_after": NINE}, NINE)
        assert not self.admits({"observed_after": NINE}, "2025-05-06T07:08:09.123456788Z")

    def test_upper_bound_is_exclusive_to_the_nanosecond(self) -> None:
        assert not self.admits({"observed_before": NINE}, NINE)
        assert self.admits({"observed_before": NINE}, "2025-05-06T07:08:09.123456788Z")

    def test_bounds_and_values_compare_as_instants_across_offsets(self) -> None:
        assert self.admits(
            {"observed_after": "2025-05-06T09:08:09.123456789+02:00"}, NINE
        ) and not self.admits({"observed_before": "2025-05-06T09:08:09.123456789+02:00"}, NINE)

    def test_bounds_keep_their_digits_on_the_wire(self) -> None:
        window = MetaFilter(observed_after=NINE, observed_before=NINE_PLUS_ONE)
        assert to_wire(window) == {"observed_after": NINE, "observed_before": NINE_PLUS_ONE}
        assert MetaFilter.model_validate_json(window.model_dump_json()) == window
