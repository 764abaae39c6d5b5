"""One conformance run inside pytest: the driver, its profile objects, waivers and results."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import conformance
from conformance.bridge import as_sync
from conformance.checks.catalogue import Check, all_checks, run_one
from conformance.checks.context import CheckContext, RunSettings, new_nonce
from conformance.checks.outcome import (
    RETAINS_NOTHING,
    CheckResult,
    ConformanceFailure,
    Inconclusive,
)
from conformance.checks.runner import retention
from conformance.driver import Driver, DriverError, Profile, ProfileNotOffered
from conformance.fuzz.runner import (
    FUZZ_TARGETS,
    FuzzConfigError,
    FuzzFailure,
    FuzzInconclusive,
    FuzzReport,
    FuzzTarget,
    run_fuzz,
)
from conformance.report import (
    CheckEntry,
    DriverInfo,
    ProfileInfo,
    Report,
    level_of,
    redact_options,
    redact_text,
    secret_values,
    summarise,
)
from plugins.registry import resolve_driver
from plugins.settings import KitSettings
from plugins.waivers import Waiver


@dataclass
class KitRun:
    """The state of one pytest process's conformance run (one per xdist worker)."""

    settings: KitSettings
    driver: Driver
    waivers: dict[str, Waiver]
    objects: dict[str, Any]
    nonce: str = field(default_factory=new_nonce)
    today: dt.date = field(default_factory=dt.date.today)
    collected: list[CheckEntry] = field(default_factory=list)
    _retains: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def start(cls, settings: KitSettings, waivers: dict[str, Waiver]) -> KitRun:
        """Resolve the driver and build each asked profile it offers (errors before any test)."""
        assert settings.driver is not None
        driver = resolve_driver(settings.driver, settings.driver_options)
        objects: dict[str, Any] = {
            profile: as_sync(driver.make(profile))
            for profile in settings.profiles()
            if profile in driver.profiles
        }
        return cls(settings=settings, driver=driver, waivers=waivers, objects=objects)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values of the driver's credential-like options."""
        return secret_values(self.driver.options)

    @property
    def run_settings(self) -> RunSettings:
        """How each driver call is made."""
        s = self.settings
        return RunSettings(
            timeout=s.timeout,
            retries=s.retries,
            backoff=s.backoff,
            secrets=self.secrets,
            constraints=self.driver.constraints,
        )

    def checks(self) -> list[Check]:
        """The checks of the asked profiles, in catalogue order."""
        asked = set(self.settings.profiles())
        return [c for c in all_checks() if c.profile in asked]

    def fuzz_targets(self) -> list[FuzzTarget]:
        """The fuzz targets of the asked profiles."""
        asked = set(self.settings.profiles())
        return [t for t in FUZZ_TARGETS.values() if t.profile in asked]

    def run_fuzz_target(self, target: FuzzTarget) -> CheckEntry:
        """Fuzz a fresh instance of the driver with one target, under the run's call rules;
        its report entry (the seed is in the reason; `calls` counts driver calls)."""
        entry = CheckEntry(
            id=target.id, profile=target.profile, outcome="passed", clause=target.clause
        )
        if target.profile not in self.objects:
            entry.outcome = "skipped"
            entry.reason = (
                f"driver `{self.driver.name}` does not offer the {target.profile} profile"
            )
            return entry
        s = self.settings
        # A CI run is derandomised, so the same commit fuzzes the same programs.
        derandomize = s.fuzz_seed is None and bool(os.environ.get("CI"))
        started = time.perf_counter()
        report: FuzzReport | None = None
        try:
            # The Driver, not the suite's instance: the fuzzer builds instances of its own.
            report = run_fuzz(
                target.id,
                self.driver,
                examples=s.fuzz_examples,
                seed=s.fuzz_seed,
                derandomize=derandomize,
                repro_dir=s.fuzz_repro_dir,
                driver_spec=s.driver,
                driver_options=dict(self.driver.options),
                settings=self.run_settings,
            )
        except FuzzFailure as failure:
            # Its text carries the shrunk program, the seed and the regression test's path.
            entry.outcome, entry.reason, report = "failed", str(failure), failure.report
        except FuzzInconclusive as stop:
            entry.outcome, entry.reason, report = "inconclusive", str(stop), stop.report
        except (ConformanceFailure, Inconclusive) as failure:
            entry.outcome = "inconclusive" if isinstance(failure, Inconclusive) else "failed"
            entry.reason = str(failure)
        except (FuzzConfigError, DriverError) as error:
            # A fuzz target that could not run is not passed.
            entry.outcome, entry.reason = "failed", f"{target.id} could not run: {error}"
        else:
            entry.reason = report.summary()
        if report is not None:
            entry.calls, entry.retries = report.calls, report.retries
        entry.duration = round(time.perf_counter() - started, 6)
        entry.reason = redact_text(entry.reason, self.secrets)
        return entry

    def close(self) -> None:
        """Shut the run's providers down (`shutdown` is idempotent by contract)."""
        for obj in self.objects.values():
            shutdown = getattr(obj, "shutdown", None)
            if callable(shutdown):
                with contextlib.suppress(Exception):
                    # A failing shutdown must not hide the verdict already reached.
                    shutdown()

    def profile_object(self, profile: str) -> Any:
        """The run's engine or provider (sync face); `ProfileNotOffered` if there is none."""
        if profile not in self.objects:
            raise ProfileNotOffered(
                f"driver `{self.driver.name}` does not offer the {profile} "
                f"profile, or it was not asked for"
            )
        return self.objects[profile]

    def retains(self, profile: Profile) -> bool:
        """The retention probe's answer for `profile`, asked once per process."""
        if profile not in self._retains:
            ctx = CheckContext(f"{profile}.retention_probe", self.run_settings, self.nonce)
            try:
                self._retains[profile] = retention(profile)(self.objects[profile], ctx)
            except (ConformanceFailure, Inconclusive):
                # The probe's own check reports the fault; storage checks still run.
                self._retains[profile] = True
        return self._retains[profile]

    def fetch_modes(self, chk: Check) -> list[str | None]:
        """The fetch modes a check runs once for: each declared one for a `per_mode` check
        of an engine that declares some, else a single unparametrised run."""
        engine = self.objects.get("engine")
        if not chk.per_mode or engine is None:
            return [None]
        declared = [str(getattr(m, "value", m)) for m in engine.descriptor().fetch_modes]
        return list(declared) or [None]

    def run_check(self, chk: Check, fetch_mode: str | None = None) -> CheckResult:
        """Run one check, then apply its waiver and redact credentials from its reason."""
        item_id = chk.id if fetch_mode is None else f"{chk.id}[{fetch_mode}]"
        if chk.profile not in self.objects:
            reason = f"driver `{self.driver.name}` does not offer the {chk.profile} profile"
            result = CheckResult(id=item_id, outcome="skipped", reason=reason)
        elif chk.storage and not self.retains(chk.profile):
            result = CheckResult(id=item_id, outcome="skipped", reason=RETAINS_NOTHING)
        else:
            result = run_one(
                chk, self.objects[chk.profile], self.run_settings, self.nonce, fetch_mode
            )
        result = self._waive(chk.id, result)
        result.reason = redact_text(result.reason, self.secrets)
        return result

    def _waive(self, check_id: str, result: CheckResult) -> CheckResult:
        waiver = self.waivers.get(check_id)
        if waiver is None:
            return result
        where = f"waiver for `{check_id}` ({waiver.issue}, expires {waiver.expires})"
        if waiver.expired(self.today):
            result.outcome = "failed"
            result.reason = (
                f"{where} has expired: fix the driver or renew the waiver. "
                f"The check {result.outcome}: {result.reason}"
            ).strip()
        elif result.outcome == "failed":
            result.outcome = "waived"
            result.reason = f"{where}: {waiver.reason}. Failure: {result.reason}"
        elif result.outcome == "passed":
            result.outcome = "failed"
            result.reason = (
                f"unexpected pass: the check is waived by the {where}, but "
                f"passed; remove the waiver (waivers are strict)"
            )
        return result

    def entry_of(self, chk: Check, result: CheckResult) -> CheckEntry:
        """The report entry of one check's result."""
        return CheckEntry(
            id=result.id,
            profile=chk.profile,
            outcome=result.outcome,
            reason=result.reason,
            duration=round(result.duration, 6),
            calls=result.calls,
            retries=result.retries,
            refusals=len(result.refusals),
            clause=chk.clause,
            optional=chk.needs is not None,
        )

    def summary_lines(self) -> list[str]:
        """What the terminal summary shows: levels and verdict."""
        report = build_report(self)
        s = report.summary
        retries = sum(c.retries for c in report.checks)
        lines = [
            f"tinymemory conformance of `{self.driver.name}`: {s.verdict} "
            f"({s.passed} passed, {s.failed} failed, {s.skipped} skipped, {s.waived} "
            f"waived, {s.inconclusive} inconclusive; retries {retries})"
        ]
        for name, info in sorted(report.profiles.items()):
            lines.append(f"  {name}: level {info.level}")
        for entry in report.checks:
            if entry.id in FUZZ_TARGETS and entry.outcome == "passed":
                # The seed is what reproduces a random run: always shown.
                lines.append(f"  {entry.id}: {entry.reason}")
        if self.settings.report is not None:
            lines.append(f"  report: {self.settings.report}")
        return lines


def entry_from_properties(properties: Iterable[tuple[str, object]]) -> CheckEntry | None:
    """The report entry a check item recorded in its user properties, if any."""
    for name, value in properties:
        if name == "tinymemory" and isinstance(value, dict):
            return CheckEntry.model_validate(value)
    return None


def _profile_info(run: KitRun, profile: Profile, entries: list[CheckEntry]) -> ProfileInfo:
    retains: bool | None = None
    storage_skips = [e for e in entries if e.reason == RETAINS_NOTHING]
    if any(e.outcome != "skipped" for e in entries):
        retains = not storage_skips
    expected = {c.id for c in all_checks() if c.profile == profile}
    ran = {e.id.partition("[")[0] for e in entries}
    # A check parametrised by fetch mode counts once it ran for some mode.
    level = level_of(entries, retains) if expected <= ran else "none"
    info = ProfileInfo(level=level, retains=retains, constraints=run.driver.constraints.describe())
    obj = run.objects.get(profile)
    try:
        if obj is not None and profile == "engine":
            info.fetch_modes = [str(getattr(m, "value", m)) for m in obj.descriptor().fetch_modes]
        if obj is not None and profile == "provider":
            info.capabilities = list(obj.capabilities().to_wire())
    except Exception as exc:  # the report must still be written
        info.capabilities = info.capabilities or [f"(unreadable: {type(exc).__name__})"]
    return info


def build_report(run: KitRun) -> Report:
    """The report of everything this process collected (xdist: every worker's results)."""
    order = {c.id: i for i, c in enumerate(all_checks())}
    entries = sorted(
        run.collected, key=lambda e: (order.get(e.id.partition("[")[0], len(order)), e.id)
    )
    profiles = {
        profile: _profile_info(run, profile, [e for e in entries if e.profile == profile])
        for profile in run.settings.profiles()
        if profile in run.driver.profiles
    }
    return Report(
        kit_version=conformance.__version__,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        driver=DriverInfo(
            name=run.driver.name,
            distribution=run.driver.distribution,
            version=run.driver.version,
            options=redact_options(run.driver.options),
        ),
        profiles=profiles,
        checks=entries,
        summary=summarise(entries),
    )
