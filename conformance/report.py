"""The conformance report: a versioned JSON schema, levels per profile, Markdown and diffs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from conformance.constraints import NOT_APPLICABLE

# The redaction rules live in their own module; they are part of this module's API too.
from conformance.redaction import REDACTED as REDACTED
from conformance.redaction import is_credential_key as is_credential_key
from conformance.redaction import redact_options as redact_options
from conformance.redaction import redact_text as redact_text
from conformance.redaction import secret_values as secret_values

SCHEMA = "tinymemory-conformance/report"
SCHEMA_VERSION = 2

Level = Literal["none", "shape-only", "core", "full"]
Verdict = Literal["pass", "fail", "inconclusive", "error"]
OutcomeName = Literal["passed", "failed", "skipped", "inconclusive", "waived", "not run"]
ErrorKind = Literal[
    "build", "collection", "crash", "interrupted", "unfinished", "nothing selected", "not run"
]

GOOD_OUTCOMES: tuple[OutcomeName, ...] = ("passed", "skipped", "waived")
"""The outcomes a run may pass with."""


class Repeats(BaseModel):
    """How a check fared over `--conformance-repeat N` runs, each with its own seed."""

    runs: int
    failed: int = 0
    inconclusive: int = 0
    failed_seeds: list[int] = Field(default_factory=list)
    """The seeds of the failing runs: `--conformance-seed S` replays one of them."""
    flaky: bool = False
    """It failed on some runs and passed on others (a stable failure fails every run)."""

    def describe(self) -> str:
        """`failed 4 of 40 (flaky)`, `failed 3 of 3`, `passed 5 of 5`, ..."""
        if self.failed:
            return f"failed {self.failed} of {self.runs}" + (" (flaky)" if self.flaky else "")
        if self.inconclusive:
            return f"inconclusive {self.inconclusive} of {self.runs}"
        return f"{self.runs} runs"


class Precondition(BaseModel):
    """Why a check could not reach a verdict: a call it relied on went wrong, an operation
    other checks test (the call is in the reason)."""

    owners: list[str]
    """The checks testing that operation."""
    failed: list[str] = Field(default_factory=list)
    """Those of `owners` that failed (or were waived) in this run: they report the fault.
    Empty when none did: the fault shows only in the checks relying on the operation."""


class Hang(BaseModel):
    """A driver call that ran past its time limit and so left a check inconclusive."""

    model_config = {"frozen": True}

    call: str
    """The method that hung, `store()`: the one that ran past the limit, or the earlier
    one whose blocked event loop kept this check's call from starting."""
    loop_blocked: bool = False
    """The call blocked the driver's event loop: its thread did not come back."""


class CheckEntry(BaseModel):
    """One check's verdict in the report."""

    id: str
    profile: Literal["engine", "provider"]
    outcome: OutcomeName
    reason: str = ""
    duration: float = 0.0
    calls: int = 0
    """Driver calls the check made, whether it passed or not."""
    retries: int = 0
    refusals: int = 0
    """Calls where the driver refused valid input that no declared constraint covers."""
    named_refusals: list[str] = Field(default_factory=list)
    """Refusals of valid input the contract itself names (`empty content`), which the
    driver made without declaring them: accepted, and listed beside the level."""
    clause: str = ""
    optional: bool = False
    repeats: Repeats | None = None
    """Set when the check ran more than once (`--conformance-repeat`)."""
    trace: str | None = None
    """Where the driver raised the exception the outcome came from: its traceback from
    the driver's first frame on (the kit's calling frames trimmed, credentials
    redacted). Absent when the outcome came from no exception of the driver's, or from
    one a driver process sent over the driver protocol (it has no frames here)."""
    precondition: Precondition | None = None
    """Set when the check is inconclusive (or waived) because a call it relied on went
    wrong."""
    waived_by: str | None = None
    """The check whose waiver covers this outcome, when that is not this check: its fault
    left this check inconclusive."""
    replay: str | None = None
    """The command that runs this check alone again with the seed that failed it; set
    for a failed or inconclusive check."""
    hang: Hang | None = None
    """Set when the check is inconclusive because a driver call hung."""
    concurrency_only: bool = False
    """The check failed beside other checks run at once, and passed when run again alone:
    the driver shares state between calls unsafely (`--conformance-concurrency`)."""

    def shown_outcome(self) -> str:
        """The outcome with its repeat count when it ran more than once."""
        if self.repeats is None or self.repeats.runs == 1:
            return self.outcome
        if self.outcome in ("failed", "inconclusive"):
            return self.repeats.describe()
        return f"{self.outcome} ({self.repeats.describe()})"


class DriverInfo(BaseModel):
    """Which driver was run, from which distribution, with which (redacted) options."""

    name: str
    distribution: str | None = None
    version: str | None = None
    options: dict[str, str] = Field(default_factory=dict)
    command: str | None = None
    """The command line (redacted) of the process that served the driver over the driver
    protocol (`exec:`); absent for a driver run in process."""
    rebuilt: list[str] = Field(default_factory=list)
    """Each time the run built the driver again part-way, and why (a call it could not
    interrupt was left behind; the checks after it ran on the fresh instance)."""


class ProfileInfo(BaseModel):
    """What the driver declared for one profile, and the level it reached."""

    level: Level
    retains: bool | None = None
    fetch_modes: list[str] | None = None
    capabilities: list[str] | None = None
    features: list[str] = Field(default_factory=list)
    """The profile's optional features the driver offers: fetch modes for an engine,
    optional families for a provider. `full` needs every one of `optional_features`."""
    optional_features: list[str] = Field(default_factory=list)
    """Every optional feature of the profile the kit checks."""
    constraints: list[str] = Field(default_factory=list)
    """The limits the driver declares on contract-valid input (empty: none)."""
    not_applicable: list[str] = Field(default_factory=list)
    """Checks the declared constraints leave nothing to send (skipped, said beside the
    level: never counted as passes)."""

    checks_run: int | None = None
    """How many of the profile's `checks_total` checks this run ran; when fewer (a `-k`
    run), the profile reaches no level, and `shown_level` says so."""
    checks_total: int | None = None

    def shown_level(self) -> str:
        """The level, with the checks the declaration left nothing to send counted
        beside it: `full; 1 check not applicable under the declared constraints`; or
        why a partial run reached none."""
        partial = self.partial_note()
        if partial is not None:
            return f"{self.level} ({partial})"
        count = len(self.not_applicable)
        if not count:
            return self.level
        return f"{self.level}; {count} check{'s' * (count != 1)} {NOT_APPLICABLE}"

    def partial_note(self) -> str | None:
        """`a level needs every check of the profile; this run ran 1 of 31`, when it ran
        fewer than all."""
        if self.checks_run is None or self.checks_total is None:
            return None
        if self.checks_run >= self.checks_total:
            return None
        return (
            f"a level needs every check of the profile, and this run ran {self.checks_run} "
            f"of {self.checks_total}; the rest were deselected (-k, say)"
        )

    named_refusals: list[str] = Field(default_factory=list)
    """Refusals the contract names that the driver made without declaring them (empty
    content), one line each; like `constraints`, what the level was reached with."""


class RunError(BaseModel):
    """Why a run has no full verdict: a driver that could not be built, a collection-time
    driver error, an interrupt, nothing selected, or selected checks that never ran."""

    kind: ErrorKind
    message: str
    worker: str | None = None
    """The process it happened in: `main`, or an xdist worker id (`gw0`)."""

    def describe(self) -> str:
        """`build (gw1): driver ... failed to build ...`"""
        where = f" ({self.worker})" if self.worker else ""
        return f"{self.kind}{where}: {self.message}"


class Summary(BaseModel):
    """Counts per outcome and the run's verdict."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    waived: int = 0
    inconclusive: int = 0
    not_run: int = 0
    flaky: int = 0
    """Failed checks that passed on some of their repeats."""
    verdict: Verdict = "pass"


class Concurrency(BaseModel):
    """How many checks a run asked to run at once, and how many it ran."""

    asked: int
    """`--conformance-concurrency`."""
    used: int
    """At most this many ran at once in each process (1: one at a time)."""
    serial_because: str | None = None
    """Why the checks ran one at a time though more were asked for."""

    def sentence(self) -> str:
        """How many checks ran at once, in one sentence (no final stop)."""
        if self.used > 1:
            return f"Checks ran up to {self.used} at once (--conformance-concurrency)"
        why = self.serial_because or "no process ran more than one at once"
        return f"Checks ran one at a time, though {self.asked} at once were asked for: {why}"


class Report(BaseModel):
    """A whole conformance run (schema `tinymemory-conformance/report`, version 2)."""

    schema_id: str = Field(default=SCHEMA, alias="schema")
    schema_version: int = SCHEMA_VERSION
    kit_version: str
    created_at: str
    seed: int | None = None
    """The run seed: `--conformance-seed SEED` replays the run."""
    repeat: int = 1
    """How many times each check ran (`--conformance-repeat`)."""
    concurrency: Concurrency | None = None
    """How many checks ran at once, when more than one was asked for."""
    driver: DriverInfo
    errors: list[RunError] = Field(default_factory=list)
    """Why the run has no full verdict; any makes the verdict `error`."""
    profiles: dict[str, ProfileInfo] = Field(default_factory=dict)
    checks: list[CheckEntry] = Field(default_factory=list)
    summary: Summary = Field(default_factory=Summary)

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


def summarise(checks: Iterable[CheckEntry], errors: Sequence[RunError] = ()) -> Summary:
    """Outcome counts and the verdict.

    `error` when the run has errors (a check selected but never run among them), else
    `fail` on any failure, else `inconclusive` on any inconclusive check, else `pass`.
    A run with no check at all is never a pass: the caller records that as an error.
    """
    entries = list(checks)
    counts = Counter(c.outcome for c in entries)
    verdict: Verdict = "pass"
    if errors or counts["not run"]:
        verdict = "error"
    elif counts["failed"]:
        verdict = "fail"
    elif counts["inconclusive"]:
        verdict = "inconclusive"
    return Summary(
        passed=counts["passed"],
        failed=counts["failed"],
        skipped=counts["skipped"],
        waived=counts["waived"],
        inconclusive=counts["inconclusive"],
        not_run=counts["not run"],
        flaky=sum(1 for c in entries if c.repeats is not None and c.repeats.flaky),
        verdict=verdict,
    )


def level_of(
    checks: Iterable[CheckEntry],
    retains: bool | None,
    expected: Iterable[str] = (),
    *,
    features_offered: bool = False,
) -> Level:
    """The level one profile reached; it means the same for both profiles.

    `none`: a required check failed, was inconclusive, waived or not run. `shape-only`:
    the driver retains nothing and every other check passed. `core`: every required
    check passed (or was skipped for its stated reason). `full`: core, and the driver
    offers every optional feature of the profile (`features_offered`: each fetch mode
    of an engine, each optional family of a provider) and every check of them passed.
    A run missing any of the `expected` check ids (deselected with `-k`, say) reaches
    no level.
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
    if features_offered and all(c.outcome == "passed" for c in optional):
        return "full"
    return "core"


def _cell(text: str, width: int = 160) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def not_offered_reason(driver: str, profile: str) -> str:
    """Why a check of a profile the driver does not offer is skipped."""
    return f"driver `{driver}` does not offer the {profile} profile"


def is_not_offered(report: Report, c: CheckEntry) -> bool:
    """Whether `c` was skipped because the driver does not offer its profile."""
    return c.outcome == "skipped" and c.reason == not_offered_reason(report.driver.name, c.profile)


def not_offered(report: Report) -> dict[str, int]:
    """Profiles whose checks were skipped because the driver does not offer them, with
    how many checks each: said in one line, never check by check."""
    counts = Counter(c.profile for c in report.checks if is_not_offered(report, c))
    return dict(sorted(counts.items()))


def not_offered_line(profile: str, count: int) -> str:
    """`engine profile: not offered by the driver (25 checks skipped)`."""
    checks = f"{count} check{'s' * (count != 1)}"
    return f"{profile} profile: not offered by the driver ({checks} skipped)"


def hung_calls(report: Report) -> dict[Hang, list[str]]:
    """Each driver call that hung, with the checks it left inconclusive (in run order)."""
    hung: dict[Hang, list[str]] = {}
    for c in report.checks:
        if c.hang is not None and c.outcome == "inconclusive":
            hung.setdefault(c.hang, []).append(c.id)
    return hung


def hang_lines(report: Report) -> list[str]:
    """`the driver hangs: store() ran past the time limit in 25 checks (provider.health,
    ...)`, one line per call that hung; none when no call did."""
    lines = []
    for hang, ids in hung_calls(report).items():
        what = (
            "blocked its event loop, whose thread did not come back,"
            if hang.loop_blocked
            else "ran past the time limit"
        )
        shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        count = f"{len(ids)} check{'s' * (len(ids) != 1)}"
        lines.append(
            f"the driver hangs: {hang.call} {what} in {count}, inconclusive on its "
            f"account ({shown})"
        )
    return lines


def verdict_lines(report: Report) -> list[str]:
    """The verdict and, first of all, why a run has none: what a reader must see first
    (run errors, then the calls that hung)."""
    s = report.summary
    lines = [f"**Verdict: {s.verdict}**"]
    hangs = hang_lines(report)
    if report.errors or hangs:
        lines[0] += ", because:"
        lines += [f"- {_cell(e.describe(), 400)}" for e in report.errors]
        lines += [f"- {line}" for line in hangs]
    return lines


def explain_command(check_id: str) -> str:
    """The command that explains the contract behind a check (or fuzz target)."""
    return f"tinymemory-conformance explain {check_id.partition('[')[0]}"


def _detail(c: CheckEntry) -> list[str]:
    # The reason in full, in a block so its own line breaks and pipes survive.
    fence = "~~~~" if "```" in c.reason else "```"
    lines = [f"#### `{c.id}`: {c.shown_outcome()}", ""]
    if c.clause:
        lines += [f"Rule: {c.clause}", ""]
    lines += [fence, c.reason or "(no reason given)", fence, ""]
    if c.replay:
        lines.append(f"- replay: `{c.replay}`")
    lines += [f"- explain: `{explain_command(c.id)}`", ""]
    return lines


def to_markdown(report: Report) -> str:
    """A summary for a CI job's page: the verdict (and any run error) first, then each
    failure and each inconclusive check in full, then the levels and the other checks."""
    s = report.summary
    d = report.driver
    counts = (
        f"{s.passed} passed, {s.failed} failed, {s.skipped} skipped, {s.waived} waived, "
        f"{s.inconclusive} inconclusive, {s.not_run} not run"
    )
    if s.flaky:
        counts += f" ({s.flaky} flaky)"
    seed = f", seed {report.seed}" if report.seed is not None else ""
    repeat = f", each check run {report.repeat} times" if report.repeat > 1 else ""
    lines = [
        f"## TinyMemory conformance: `{d.name}`"
        + (f" ({d.distribution} {d.version})" if d.distribution else ""),
        "",
        *verdict_lines(report),
        "",
        f"{counts} (kit {report.kit_version}{seed}{repeat})",
        "",
        *([f"Served over the driver protocol by `{d.command}`.", ""] if d.command else []),
        *[f"The driver was {_cell(line, 400)}." for line in d.rebuilt],
        *([""] if d.rebuilt else []),
        *([f"{report.concurrency.sentence()}.", ""] if report.concurrency else []),
    ]
    for title, outcome in (("Failures", "failed"), ("Inconclusive", "inconclusive")):
        shown = [c for c in report.checks if c.outcome == outcome]
        if shown:
            lines += [f"### {title} ({len(shown)})", ""]
            for c in shown:
                lines += _detail(c)
    lines += [
        "### Levels",
        "",
        "| profile | level | offered features | declared constraints, named refusals |",
        "| --- | --- | --- | --- |",
        *(
            f"| {name} | {_cell(level_cell(info), 400)} | {features_cell(info)} | "
            f"{'; '.join([*info.constraints, *info.named_refusals]) or 'none'} |"
            for name, info in sorted(report.profiles.items())
        ),
        "",
    ]
    absent = not_offered(report)
    lines += [f"- {not_offered_line(p, n)}" for p, n in absent.items()]
    rest = [
        c
        for c in report.checks
        if c.outcome not in ("failed", "inconclusive") and not is_not_offered(report, c)
    ]
    if absent:
        lines.append("")
    if rest:
        lines += [
            "### Other checks",
            "",
            "| check | outcome | reason | calls | retries |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{c.id}` | {c.shown_outcome()} | {_cell(c.reason, 400)} | {c.calls} | {c.retries} |"
            for c in rest
        ]
    lines += trace_lines(report)
    return "\n".join(lines).rstrip("\n") + "\n"


def trace_lines(report: Report) -> list[str]:
    """The Markdown of where the driver raised, for each check whose outcome came from an
    exception of the driver's: its reason in full (the call with it), then the trace."""
    traced = [c for c in report.checks if c.trace]
    if not traced:
        return []
    lines = ["", "### Where the driver raised"]
    for c in traced:
        trace = (c.trace or "").rstrip("\n").replace("```", "` ` `")
        reason = c.reason.replace("\n", " ")
        lines += ["", f"`{c.id}` {c.shown_outcome()}: {reason}", "", "```text", trace, "```"]
    return lines


def level_cell(info: ProfileInfo) -> str:
    """The level as the Markdown shows it: with the checks the declared constraints left
    nothing to send counted and named beside it, or why a partial run reached none."""
    if not info.not_applicable or info.partial_note() is not None:
        return info.shown_level()
    names = ", ".join(f"`{check_id}`" for check_id in info.not_applicable)
    return f"{info.shown_level()}: {names}"


def features_cell(info: ProfileInfo) -> str:
    """`keyword, vector (of keyword, vector, hybrid)`: what `full` is judged on."""
    offered = ", ".join(info.features) or "none"
    if not info.optional_features:
        return offered
    return f"{offered} (of {', '.join(info.optional_features)})"


ABSENT = "absent"
"""How `report diff` names a check the newer report does not hold."""


class ReportDiff(BaseModel):
    """What changed between two runs, keyed by check id."""

    regressions: list[tuple[str, str, str]] = Field(default_factory=list)
    fixes: list[tuple[str, str, str]] = Field(default_factory=list)
    other: list[tuple[str, str, str]] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    verdict: tuple[str, str] | None = None
    """The verdicts before and after, when they differ."""


def diff_reports(old: Report, new: Report) -> ReportDiff:
    """Regressions (was passing, now not; and any check the new report lacks), fixes
    (was not passing, now passing), and other changes."""
    before = {c.id: c.outcome for c in old.checks}
    after = {c.id: c.outcome for c in new.checks}
    good = ("passed", "skipped")
    result = ReportDiff(
        added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after))
    )
    for check_id in sorted(before):
        was, now = before[check_id], after.get(check_id, ABSENT)
        if was == now:
            continue
        change = (check_id, was, now)
        if now == ABSENT or (was in good and now not in good):
            # A check that vanished is a regression even if it was failing: losing a
            # check must never read as progress.
            result.regressions.append(change)
        elif was not in good and now in good:
            result.fixes.append(change)
        else:
            result.other.append(change)
    if old.summary.verdict != new.summary.verdict:
        result.verdict = (old.summary.verdict, new.summary.verdict)
    return result
