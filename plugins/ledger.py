"""What the reporting process knows of a run, and the report it makes of it.

The main process without xdist, the controller with it: it learns which checks were
selected, how each ended (a worker's crash included), what each process learnt of the
driver, and what stopped the run. A selected check with no outcome is `not run`, and
the verdict is `pass` only when every selected check passed, was skipped for its stated
reason or was waived.
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

import conformance
from conformance.checks.blame import base_outcomes, blame, failed_owners
from conformance.checks.catalogue import CATALOGUE, all_checks
from conformance.checks.outcome import RETAINS_NOTHING, not_applicable
from conformance.constraints import describe_named
from conformance.driver import Driver
from conformance.engine.requests import FetchMode
from conformance.fuzz_targets import FUZZ_TARGETS
from conformance.report import (
    CheckEntry,
    Concurrency,
    DriverInfo,
    OutcomeName,
    ProfileInfo,
    Report,
    RunError,
    level_of,
    redact_options,
    summarise,
)
from plugins.run import ProcessFacts
from plugins.settings import KitSettings

UNFINISHED = RunError(
    kind="unfinished",
    message="the run started but did not finish: it was killed, or crashed, before it "
    "could write its verdict",
)
"""The error of the report written when a run starts, until the real one replaces it."""

ENGINE_FEATURES = tuple(mode.value for mode in FetchMode)
"""An engine's optional features: the fetch modes."""


def provider_features() -> list[str]:
    """A provider's optional features the kit checks: its optional families."""
    return sorted({c.needs for c in all_checks() if c.profile == "provider" and c.needs})


def entry_for(item_id: str, outcome: OutcomeName, reason: str) -> CheckEntry | None:
    """A report entry for an item the reporting process heard of but got no entry from
    (`engine.get`, `engine.fetch_filters[vector]`, a fuzz target); None for an unknown id."""
    base = item_id.partition("[")[0]
    all_checks()  # the catalogue fills on first use
    chk = CATALOGUE.get(base)
    target = FUZZ_TARGETS.get(base)
    if chk is not None:
        profile, clause, optional = chk.profile, chk.clause, chk.needs is not None
    elif target is not None:
        profile, clause, optional = target.profile, target.clause, False
    else:
        return None
    return CheckEntry(
        id=item_id,
        profile=profile,
        outcome=outcome,
        reason=reason,
        clause=clause,
        optional=optional,
    )


def with_blame(entries: dict[str, CheckEntry]) -> dict[str, CheckEntry]:
    """`entries`, each left inconclusive (or waived) by a failed precondition saying which
    check testing that operation failed on it, if one did (`conformance.checks.blame`):
    known only now that every check ran, whichever process ran it."""
    outcomes = base_outcomes({item_id: e.outcome for item_id, e in entries.items()})
    shown: dict[str, CheckEntry] = {}
    for item_id, entry in entries.items():
        relied = entry.precondition
        if relied is not None:
            failed = failed_owners(relied.owners, outcomes)
            entry = entry.model_copy(
                update={
                    "reason": f"{entry.reason} {blame(relied.owners, outcomes)}",
                    "precondition": relied.model_copy(update={"failed": failed}),
                }
            )
        shown[item_id] = entry
    return shown


@dataclass
class Ledger:
    """Everything the reporting process has heard about the run."""

    settings: KitSettings
    driver: Driver
    seed: int
    selected: list[str] = field(default_factory=list)
    """Item ids (`engine.get`, `engine.fetch_filters[vector]`) left after `-k` and the like."""
    entries: dict[str, CheckEntry] = field(default_factory=dict)
    facts: list[ProcessFacts] = field(default_factory=list)
    crashed_workers: set[str] = field(default_factory=set)
    """Workers whose crash was charged to the check they were running."""
    downs: dict[str, str] = field(default_factory=dict)
    """Workers that went down with an error, and the error."""
    rebuilt: list[str] = field(default_factory=list)
    """Why the driver was built again part-way through the run: a line each time."""
    interrupted: bool = False
    stopped: str | None = None
    """Why pytest stopped early, when it did (`-x`, a collection error, ...)."""

    def select(self, item_ids: Iterable[str]) -> None:
        """Note the items a process will run (every xdist worker reports the same list)."""
        for item_id in item_ids:
            if item_id not in self.selected:
                self.selected.append(item_id)

    def record(self, entry: CheckEntry) -> None:
        """A check's outcome, as the process that ran it reported it."""
        self.entries[entry.id] = entry

    def record_crash(self, item_id: str, worker: str, message: str) -> None:
        """A worker died while running `item_id`: that check failed with the crash."""
        self.crashed_workers.add(worker)
        reason = (
            f"{message}: the process running the check died (os._exit, a signal or a "
            f"segfault in the driver)"
        )
        entry = entry_for(item_id, "failed", reason)
        if entry is not None:
            self.entries[item_id] = entry

    def record_unrecorded(self, item_id: str, outcome: OutcomeName, text: str) -> None:
        """An item ended without recording its entry (pytest itself failed or skipped it)."""
        entry = entry_for(item_id, outcome, text)
        if entry is not None and item_id not in self.entries:
            self.entries[item_id] = entry

    # -- the report --------------------------------------------------------------------

    def errors(self) -> list[RunError]:
        """Why the run has no full verdict, the gravest first."""
        errors: list[RunError] = []
        for facts in self.facts:
            if facts.build_error is not None:
                errors.append(
                    RunError(kind="build", worker=facts.worker, message=facts.build_error)
                )
        seen: set[str] = set()
        for facts in self.facts:
            for message in facts.collection_errors:
                if message not in seen:
                    seen.add(message)
                    errors.append(RunError(kind="collection", worker=facts.worker, message=message))
        for worker, error in sorted(self.downs.items()):
            # A crash inside a check is that check's failure; an interrupt is said below.
            if worker not in self.crashed_workers and not self.interrupted:
                errors.append(
                    RunError(kind="crash", worker=worker, message=f"the worker went down: {error}")
                )
        if self.interrupted:
            errors.append(RunError(kind="interrupted", message="the run was interrupted (Ctrl-C)"))
        missing = [i for i in self.selected if i not in self.entries]
        if missing:
            shown = ", ".join(missing[:12]) + (
                f" and {len(missing) - 12} more" if len(missing) > 12 else ""
            )
            why = f" ({self.stopped})" if self.stopped else ""
            errors.append(
                RunError(
                    kind="not run",
                    message=f"{len(missing)} of {len(self.selected)} selected checks never "
                    f"ran{why}: {shown}",
                )
            )
        if not self.selected and not self.entries and not errors:
            errors.append(
                RunError(
                    kind="nothing selected",
                    message="no conformance check was selected, so nothing was checked "
                    "(a -k or -m expression, or --deselect, left none)",
                )
            )
        redactor = self.driver.redactor
        return [e.model_copy(update={"message": redactor.text(e.message)}) for e in errors]

    def report(self, *, finished: bool = True) -> Report:
        """The report of the run; with `finished=False`, the one written when it starts,
        which says the run did not finish until the real one replaces it."""
        order = {c.id: i for i, c in enumerate(all_checks())}
        order.update({t: len(order) + i for i, t in enumerate(FUZZ_TARGETS)})
        entries = dict(self.entries)
        for item_id in self.selected:
            missing = entry_for(item_id, "not run", "selected, but never ran")
            if item_id not in entries and missing is not None:
                entries[item_id] = missing
        entries = with_blame(entries)
        ordered = sorted(
            entries.values(), key=lambda e: (order.get(e.id.partition("[")[0], len(order)), e.id)
        )
        errors = self.errors() if finished else [self._unfinished()]
        profiles = {
            profile: self._profile_info(profile, [e for e in ordered if e.profile == profile])
            for profile in self.settings.profiles()
            if profile in self.driver.profiles
        }
        return Report(
            kit_version=conformance.__version__,
            created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            seed=self.seed,
            repeat=self.settings.repeat,
            concurrency=self._concurrency(),
            driver=DriverInfo(
                name=self.driver.name,
                distribution=self.driver.distribution,
                version=self.driver.version,
                options=redact_options(self.settings.driver_options, self.driver.secret_options),
                command=(
                    None
                    if self.driver.command is None
                    else self.driver.redactor.text(shlex.join(self.driver.command))
                ),
                rebuilt=list(self.rebuilt),
            ),
            errors=errors,
            profiles=profiles,
            checks=ordered,
            summary=summarise(ordered, errors),
        )

    def _concurrency(self) -> Concurrency | None:
        """How many checks ran at once: the widest any process ran, or why all ran one at
        a time."""
        if self.settings.concurrency <= 1:
            return None
        told = [Concurrency.model_validate(f.concurrency) for f in self.facts if f.concurrency]
        if not told:
            return Concurrency(asked=self.settings.concurrency, used=1)
        widest = max(told, key=lambda c: c.used)
        return widest.model_copy(update={"asked": self.settings.concurrency})

    def _unfinished(self) -> RunError:
        if not self.selected:
            return UNFINISHED
        ended = sum(1 for i in self.selected if i in self.entries)
        return UNFINISHED.model_copy(
            update={
                "message": f"{UNFINISHED.message} ({ended} of {len(self.selected)} selected "
                "checks had ended when it was last written); should the driver end the "
                "process (os._exit, a segfault), --driver-isolation=process runs it in a "
                "child process, where a crash fails only the check it happens in"
            }
        )

    def _profile_info(self, profile: str, entries: list[CheckEntry]) -> ProfileInfo:
        checks = [e for e in entries if e.id not in FUZZ_TARGETS]
        # Fuzz targets are no catalogued check, but a failing one still costs the level.
        retains: bool | None = None
        if any(e.outcome not in ("skipped", "not run") for e in checks):
            retains = not any(e.reason == RETAINS_NOTHING for e in checks)
        expected = {c.id for c in all_checks() if c.profile == profile}
        ran = {e.id.partition("[")[0] for e in checks if e.outcome != "not run"}
        declared = next(
            (f for f in self.facts if f.fetch_modes is not None or f.capabilities is not None),
            None,
        )
        named = dict.fromkeys(name for e in entries for name in e.named_refusals)
        info = ProfileInfo(
            level="none",
            retains=retains,
            constraints=self.driver.constraints.describe(),
            not_applicable=[
                e.id for e in checks if e.outcome == "skipped" and not_applicable(e.reason)
            ],
            named_refusals=describe_named(named),
        )
        if declared is not None and profile == "engine":
            info.fetch_modes = declared.fetch_modes
        if declared is not None and profile == "provider":
            info.capabilities = declared.capabilities
        offered = (info.fetch_modes if profile == "engine" else info.capabilities) or []
        info.optional_features = (
            list(ENGINE_FEATURES) if profile == "engine" else provider_features()
        )
        info.features = [f for f in info.optional_features if f in offered]
        info.checks_run, info.checks_total = len(expected & ran), len(expected)
        # A check parametrised by fetch mode counts once it ran for some mode.
        if expected <= ran:
            info.level = level_of(
                entries,
                retains,
                features_offered=info.features == info.optional_features,
            )
        return info
