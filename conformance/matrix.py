"""A compatibility matrix from several JSON reports: one row per check, one column per
driver, each cell the check's outcome in that driver's report and why.

Rows are the union of every report's check ids, in catalogue order where the catalogue
knows the check (parametrised ids beside their check), then the fuzz targets, then the
rest in the order the reports hold them. A driver that does not offer a profile reads
`not offered` on every row of that profile; a check its report does not hold reads
`absent`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.report import Report, is_not_offered, not_offered, not_offered_reason

NOT_OFFERED: Final = "not offered"
ABSENT: Final = "absent"


@dataclass(frozen=True)
class Cell:
    """One driver's outcome on one check: a report outcome, `not offered` or `absent`."""

    outcome: str
    reason: str = ""
    shown: str = ""
    """The outcome as the report shows it (`failed 2 of 5`); the outcome when empty."""

    @property
    def text(self) -> str:
        """What the cell says."""
        return self.shown or self.outcome


@dataclass(frozen=True)
class Column:
    """One report: its label (the driver's name, told apart from a namesake) and levels."""

    label: str
    report: Report

    def level(self, profile: str) -> str:
        """The level reached in `profile`, or why there is none."""
        info = self.report.profiles.get(profile)
        if info is not None and info.partial_note() is not None:
            # The report's own wording is a sentence; a cell says it in brief.
            return f"{info.level} (ran {info.checks_run} of {info.checks_total} checks)"
        if info is not None:
            return info.shown_level()
        if profile in not_offered(self.report):
            return NOT_OFFERED
        return ABSENT


@dataclass(frozen=True)
class Row:
    """One check across the columns."""

    check_id: str
    profile: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Matrix:
    """The whole matrix."""

    columns: tuple[Column, ...]
    rows: tuple[Row, ...]

    @property
    def profiles(self) -> list[str]:
        """The profiles any row or report has, engine first."""
        seen = {r.profile for r in self.rows}
        seen.update(p for c in self.columns for p in c.report.profiles)
        return sorted(seen)


def labels(reports: Sequence[Report], sources: Sequence[str] = ()) -> list[str]:
    """Each report's column label: the driver's name; two reports of one name are told
    apart by their driver's version, then by `sources` (their file names), then by
    number."""
    names = [r.driver.name for r in reports]
    shown = list(names)
    for at, report in enumerate(reports):
        if names.count(names[at]) == 1:
            continue
        version = report.driver.version
        twins = [r.driver.version for r in reports if r.driver.name == names[at]]
        if version and twins.count(version) == 1:
            shown[at] = f"{names[at]} {version}"
        elif at < len(sources):
            shown[at] = f"{names[at]} ({sources[at]})"
    still = list(shown)
    for at, label in enumerate(still):
        if still.count(label) > 1:
            shown[at] = f"{label} #{still[:at].count(label) + 1}"
    return shown


def _catalogue_order() -> dict[str, int]:
    # Imported here: the catalogue loads every suite, which only the matrix needs.
    from conformance.checks.catalogue import all_checks

    return {c.id: at for at, c in enumerate(all_checks())}


def _row_ids(reports: Sequence[Report]) -> list[tuple[str, str]]:
    """Every check id with its profile: catalogue order, then the fuzz targets, then
    the rest as first seen."""
    seen: dict[str, str] = {}
    for report in reports:
        for c in report.checks:
            seen.setdefault(c.id, c.profile)
    # A driver that does not offer a profile has each of its checks skipped once,
    # unparametrised; where another report ran that check per fetch mode, the plain
    # id would be an empty row.
    ran = {c.id for r in reports for c in r.checks if not is_not_offered(r, c)}
    ran_bases = {check_id.partition("[")[0] for check_id in ran}
    ids = [i for i in seen if i in ran or i not in ran_bases]
    order = _catalogue_order()
    first = {check_id: at for at, check_id in enumerate(ids)}

    def key(check_id: str) -> tuple[int, int, str]:
        base = check_id.partition("[")[0]
        if base in order:
            return (0, order[base], check_id)
        if base.startswith("fuzz."):
            return (1, 0, check_id)
        return (2, first[check_id], check_id)

    return [(check_id, seen[check_id]) for check_id in sorted(ids, key=key)]


def _cell(report: Report, check_id: str, profile: str) -> Cell:
    for c in report.checks:
        if c.id == check_id:
            if is_not_offered(report, c):
                return Cell(NOT_OFFERED, c.reason)
            return Cell(c.outcome, c.reason, c.shown_outcome())
    if profile in not_offered(report):
        return Cell(NOT_OFFERED, not_offered_reason(report.driver.name, profile))
    return Cell(ABSENT, "the report holds no such check")


def build_matrix(reports: Sequence[Report], sources: Sequence[str] = ()) -> Matrix:
    """The matrix of `reports`, one column each in the order given; `sources` (their
    file names) tell apart reports of drivers of one name."""
    columns = tuple(
        Column(label, r) for label, r in zip(labels(reports, sources), reports, strict=True)
    )
    rows = tuple(
        Row(check_id, profile, tuple(_cell(r, check_id, profile) for r in reports))
        for check_id, profile in _row_ids(reports)
    )
    return Matrix(columns, rows)
