"""The conformance report: a versioned JSON schema, levels per profile, Markdown and diffs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

# The redaction rules live in their own module; they are part of this module's API too.
from conformance.redaction import REDACTED as REDACTED
from conformance.redaction import is_credential_key as is_credential_key
from conformance.redaction import redact_options as redact_options
from conformance.redaction import redact_text as redact_text
from conformance.redaction import secret_values as secret_values

SCHEMA = "tinymemory-conformance/report"
SCHEMA_VERSION = 1

Level = Literal["none", "shape-only", "core", "full"]
Verdict = Literal["pass", "fail", "inconclusive"]
OutcomeName = Literal["passed", "failed", "skipped", "inconclusive", "waived"]


class CheckEntry(BaseModel):
    """One check's verdict in the report."""

    id: str
    profile: Literal["engine", "provider"]
    outcome: OutcomeName
    reason: str = ""
    duration: float = 0.0
    calls: int = 0
    retries: int = 0
    refusals: int = 0
    """Calls where the driver refused valid input that no declared constraint covers."""
    clause: str = ""
    optional: bool = False


class DriverInfo(BaseModel):
    """Which driver was run, from which distribution, with which (redacted) options."""

    name: str
    distribution: str | None = None
    version: str | None = None
    options: dict[str, str] = Field(default_factory=dict)


class ProfileInfo(BaseModel):
    """What the driver declared for one profile, and the level it reached."""

    level: Level
    retains: bool | None = None
    fetch_modes: list[str] | None = None
    capabilities: list[str] | None = None
    constraints: list[str] = Field(default_factory=list)
    """The limits the driver declares on contract-valid input (empty: none)."""


class Summary(BaseModel):
    """Counts per outcome and the run's verdict."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    waived: int = 0
    inconclusive: int = 0
    verdict: Verdict = "pass"


class Report(BaseModel):
    """A whole conformance run (schema `tinymemory-conformance/report`, version 1)."""

    schema_id: str = Field(default=SCHEMA, alias="schema")
    schema_version: int = SCHEMA_VERSION
    kit_version: str
    created_at: str
    driver: DriverInfo
    profiles: dict[str, ProfileInfo] = Field(default_factory=dict)
    checks: list[CheckEntry] = Field(default_factory=list)
    summary: Summary = Field(default_factory=Summary)

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


def summarise(checks: Iterable[CheckEntry]) -> Summary:
    """Outcome counts and the verdict: any failure fails, else any inconclusive is inconclusive."""
    counts = Counter(c.outcome for c in checks)
    verdict: Verdict = "pass"
    if counts["failed"]:
        verdict = "fail"
    elif counts["inconclusive"]:
        verdict = "inconclusive"
    return Summary(
        passed=counts["passed"],
        failed=counts["failed"],
        skipped=counts["skipped"],
        waived=counts["waived"],
        inconclusive=counts["inconclusive"],
        verdict=verdict,
    )


def level_of(
    checks: Iterable[CheckEntry], retains: bool | None, expected: Iterable[str] = ()
) -> Level:
    """The level one profile reached.

    `none`: a required check failed, was inconclusive or was waived. `shape-only`: the
    driver retains nothing and every other check passed. `core`: every required check
    passed or did not apply. `full`: and every optional check (an optional capability
    family) ran and passed. A run missing any of the `expected` check ids (deselected
    with `-k`, say) reaches no level.
    """
    entries = list(checks)
    if not entries or set(expected) - {c.id for c in entries}:
        return "none"
    required = [c for c in entries if not c.optional]
    if any(c.outcome not in ("passed", "skipped") for c in required):
        return "none"
    if retains is False:
        return "shape-only"
    optional = [c for c in entries if c.optional]
    return "full" if all(c.outcome == "passed" for c in optional) else "core"


def to_markdown(report: Report) -> str:
    """A summary table for a CI job's page."""
    s = report.summary
    d = report.driver
    lines = [
        f"## TinyMemory conformance: `{d.name}`"
        + (f" ({d.distribution} {d.version})" if d.distribution else ""),
        "",
        f"**Verdict: {s.verdict}** — {s.passed} passed, {s.failed} failed, {s.skipped} skipped, "
        f"{s.waived} waived, {s.inconclusive} inconclusive (kit {report.kit_version})",
        "",
        "| profile | level | declared constraints |",
        "| --- | --- | --- |",
        *(
            f"| {name} | {info.level} | {'; '.join(info.constraints) or 'none'} |"
            for name, info in sorted(report.profiles.items())
        ),
        "",
        "| check | outcome | reason | calls | retries |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in report.checks:
        reason = c.reason.replace("|", "\\|").replace("\n", " ")
        if len(reason) > 160:
            reason = reason[:159] + "…"
        lines.append(f"| `{c.id}` | {c.outcome} | {reason} | {c.calls} | {c.retries} |")
    return "\n".join(lines) + "\n"


class ReportDiff(BaseModel):
    """What changed between two runs, keyed by check id."""

    regressions: list[tuple[str, str, str]] = Field(default_factory=list)
    fixes: list[tuple[str, str, str]] = Field(default_factory=list)
    other: list[tuple[str, str, str]] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


def diff_reports(old: Report, new: Report) -> ReportDiff:
    """Regressions (was passing, now not), fixes (the reverse), and other changes."""
    before = {c.id: c.outcome for c in old.checks}
    after = {c.id: c.outcome for c in new.checks}
    good = ("passed", "skipped")
    result = ReportDiff(
        added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after))
    )
    for check_id in sorted(set(before) & set(after)):
        was, now = before[check_id], after[check_id]
        if was == now:
            continue
        change = (check_id, was, now)
        if was in good and now not in good:
            result.regressions.append(change)
        elif was not in good and now in good:
            result.fixes.append(change)
        else:
            result.other.append(change)
    return result
