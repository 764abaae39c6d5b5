"""The run context of one check: its isolated root, and every driver call it makes."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from conformance.bridge import as_sync
from conformance.checks.evidence import compare_ids, field_differences, name_ids, show
from conformance.checks.outcome import (
    ConformanceFailure,
    DriverRaised,
    Inconclusive,
    PreconditionFailed,
)
from conformance.checks.seeds import nonce_for, seeded_nonce
from conformance.constraints import Constraints
from conformance.interrupts import from_user

_counter = itertools.count()
_ROOT_PREFIX = "tinymemory-conformance"


@dataclass(frozen=True)
class RunSettings:
    """How calls are made: a per-call time limit and the retry policy for transient errors."""

    timeout: float | None = 60.0
    retries: int = 3
    backoff: float = 0.1
    backoff_max: float = 2.0
    secrets: tuple[str, ...] = ()
    constraints: Constraints = field(default_factory=Constraints)
    """What the driver declares it cannot take; checks narrow their inputs by it."""
    seed: int | None = None
    """The run seed: a context made without a nonce derives it from this and its check id,
    so the same seed writes under the same roots with the same markers."""


def new_nonce(seed: int | None = None, key: str = "") -> str:
    """A token of letters and digits naming one run of one check.

    With a `seed`, the nonce derived from it and `key` (the same every time); inside
    `seeds.seeded_nonces`, the next of that stream; else unique to this process, its
    xdist worker and this moment.
    """
    if seed is not None:
        return nonce_for(seed, key)
    seeded = seeded_nonce()
    if seeded is not None:
        return seeded
    worker = re.sub(r"[^A-Za-z0-9]", "", os.environ.get("PYTEST_XDIST_WORKER", ""))
    return f"{worker}{time.time_ns():x}{next(_counter):x}{os.getpid():x}"


def describe(value: object, width: int = 60) -> str:
    """A short, one-line rendering of a call argument for messages."""
    text = _repr_head(value, width).replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def _repr_head(value: object, width: int) -> str:
    """`repr(value)`, or for a list only as much of it as `width` shows (a batch of a
    hundred items is not rendered whole to show its first sixty characters)."""
    if not isinstance(value, list):
        return repr(value)
    head = "["
    for index, item in enumerate(value):
        head += (", " if index else "") + repr(item)
        if len(head) > width:
            return head
    return head + "]"


def _is_refusal(error: BaseException) -> bool:
    # The contract's "this input is invalid" of either profile, without importing them.
    return type(error).__name__ in ("InvalidRequest", "Invalid")


def _is_transient(error: BaseException) -> bool:
    probe = getattr(error, "is_transient", None)
    return bool(probe()) if callable(probe) else False


class CallExpired(BaseException):
    """A driver call ran past its time limit.

    A `BaseException`, so a driver's own `except Exception` cannot swallow it.
    """


def _alarm_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _expire(signum: int, frame: object) -> None:
    raise CallExpired


def _call_with_alarm(
    limit: float, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]
) -> Any:
    # The call runs on the calling thread, as a driver bound to its creating thread
    # (an sqlite3 connection, say) requires; SIGALRM interrupts it when time is up.
    # A timer someone else had running (pytest-timeout, say) is put back afterwards.
    previous_handler = signal.signal(signal.SIGALRM, _expire)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, limit)
    started = time.monotonic()
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            remaining = max(previous_delay - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


def _call_in_thread(
    limit: float,
    label: str,
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
) -> Any:
    # Off the main thread no signal can reach the call: it runs on a daemon thread,
    # so a call that never returns cannot hold the process open.
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=target, name=f"tinymemory-call {label}", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        raise CallExpired
    if "error" in box:
        raise box["error"]
    return box.get("value")


class CheckContext:
    """Isolation and call accounting for one run of one check."""

    def __init__(
        self,
        check_id: str,
        settings: RunSettings | None = None,
        nonce: str | None = None,
        fetch_mode: str | None = None,
    ) -> None:
        self.check_id = check_id
        # When set, a check that covers every declared fetch mode covers only this one.
        self.fetch_mode = fetch_mode
        self.settings = settings or RunSettings()
        item = check_id if fetch_mode is None else f"{check_id}[{fetch_mode}]"
        self.nonce = nonce or new_nonce(self.settings.seed, item)
        # A single word, valid as an engine segment id and as part of a provider namespace.
        self.marker = f"tmconf{self.nonce}"
        slug = re.sub(r"[^A-Za-z0-9_-]", "-", check_id)
        self.root = f"{_ROOT_PREFIX}/{self.nonce}/{slug}"
        self.calls = 0
        self.retries = 0
        self.call_log: list[str] = []
        self.refusals: list[str] = []
        """Calls the driver refused as invalid where the kit sent valid input."""
        self.labels: dict[str, str] = {}
        """Names the check gave the ids it holds (`p11`), used by every message."""
        self._expecting_refusal = 0
        self._cleanups: list[tuple[str, Callable[[], object]]] = []

    # -- driver calls ---------------------------------------------------------------

    def bind(self, driver: Any) -> Any:
        """A proxy of `driver` whose every call is counted, timed and attributed to this check."""
        if isinstance(driver, RecordingProxy):
            return driver
        return RecordingProxy(as_sync(driver), self, "")

    def invoke(self, label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call `fn`, retrying transient errors; a driver exception becomes `DriverRaised`."""
        attempt = 0
        while True:
            self.calls += 1
            self.call_log.append(label)
            try:
                return self._within_time_limit(label, fn, args, kwargs)
            except Inconclusive:
                raise
            except Exception as exc:
                if not self._expecting_refusal and _is_refusal(exc):
                    self.refusals.append(label)
                if _is_transient(exc):
                    if attempt < self.settings.retries:
                        attempt += 1
                        self.retries += 1
                        time.sleep(
                            min(
                                self.settings.backoff * 2 ** (attempt - 1),
                                self.settings.backoff_max,
                            )
                        )
                        continue
                    raise Inconclusive(
                        self.check_id,
                        label,
                        f"the driver stayed unavailable after {attempt} retries: {exc}",
                    ) from exc
                raise DriverRaised(self.check_id, label, exc) from exc
            except BaseException as exc:
                # SystemExit, GeneratorExit or a raised KeyboardInterrupt from driver code
                # ends this check, not the run; the user's Ctrl-C and the kit's own
                # time limit go on up.
                if isinstance(exc, CallExpired) or from_user(exc):
                    raise
                raise DriverRaised(self.check_id, label, exc) from exc

    def _within_time_limit(
        self, label: str, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        limit = self.settings.timeout
        if limit is None:
            return fn(*args, **kwargs)
        try:
            if _alarm_available():
                return _call_with_alarm(limit, fn, args, kwargs)
            return _call_in_thread(limit, label, fn, args, kwargs)
        except CallExpired:
            raise Inconclusive(
                self.check_id, label, f"the call ran past the {limit:g} s limit"
            ) from None

    def refused(
        self,
        label: str,
        fn: Callable[[], Any],
        expect: type[BaseException] | tuple[type[BaseException], ...],
        expected: str,
    ) -> BaseException:
        """Run a call that must fail with `expect`; return the driver's error."""
        self._expecting_refusal += 1
        try:
            got = fn()
        except DriverRaised as raised:
            if isinstance(raised.error, expect):
                return raised.error
            self.fail(
                label,
                expected,
                f"{type(raised.error).__qualname__}: {raised.error}",
            )
        finally:
            self._expecting_refusal -= 1
        self.fail(label, expected, f"success ({show(got)})")

    @contextlib.contextmanager
    def answer_or_refusal(self) -> Iterator[None]:
        """Calls inside may be answered or refused as invalid, both conformant: a refusal
        here is the contract's answer, not valid input refused (not counted in `refusals`)."""
        self._expecting_refusal += 1
        try:
            yield
        finally:
            self._expecting_refusal -= 1

    # -- verdicts -------------------------------------------------------------------

    def fail(self, call: str, expected: str, got: str) -> NoReturn:
        """Fail this check at `call`."""
        raise ConformanceFailure(self.check_id, call, expected, got)

    def abbreviate(self, text: str) -> str:
        """`text` with the run's root written `<root>` and its marker `<marker>`, and,
        when either was, what they stand for said once at the end."""
        out = text.replace(self.root, "<root>").replace(self.marker, "<marker>")
        legend = [
            f"{short} = {full!r}"
            for short, full in (("<root>", self.root), ("<marker>", self.marker))
            if short in out
        ]
        return f"{out} ({'; '.join(legend)})" if legend else out

    def require(self, condition: bool, call: str, expected: str, got: object) -> None:
        """Fail at `call` unless `condition` holds.

        `got` is rendered only on failure: a `str` is taken as the message itself (pass
        `show(value)` for a driver's string), anything else is shown as its `repr`.
        """
        if not condition:
            self.fail(call, expected, got if isinstance(got, str) else show(got))

    def require_same(self, call: str, want: object, got: object, what: str = "the value") -> None:
        """Fail at `call` unless `got == want`, naming each field that differs."""
        if got != want:
            diff = field_differences(want, got)
            self.fail(call, f"{what} as stored", "; ".join(diff) or show(got))

    def label(self, item_id: str, name: str) -> str:
        """Name `item_id` in every message of this check (a probe label, say)."""
        self.labels[item_id] = name
        return item_id

    def named(self, item_ids: Sequence[str]) -> str:
        """`item_ids` by their labels, consecutive ones as ranges (`p11–p15`)."""
        return name_ids(item_ids, self.labels)

    def require_ids(
        self,
        call: str,
        got: Sequence[str],
        want: Sequence[str],
        what: str,
        *,
        ordered: bool = False,
    ) -> None:
        """Fail at `call` unless `got` holds exactly the ids of `want`, each once (and in
        its order when `ordered`); the message counts and names the differences."""
        wrong = compare_ids(got, want, self.labels, ordered=ordered)
        if wrong is not None:
            self.fail(call, what, wrong)

    @contextlib.contextmanager
    def precondition(self, owner: str, what: str) -> Iterator[None]:
        """Calls whose faults `owner` reports: a failure inside is not this check's.

        It ends the check as inconclusive ("precondition failed: ... (see owner)"), so
        one fault is reported once, by the check that owns the operation. Inside the
        owner itself, failures stay failures.
        """
        if owner == self.check_id:
            yield
            return
        try:
            yield
        except ConformanceFailure as failure:
            raise PreconditionFailed(self.check_id, owner, what, failure) from failure

    # -- cleanup --------------------------------------------------------------------

    def defer(self, label: str, fn: Callable[[], object]) -> None:
        """Run `fn` when the check ends, pass or fail (last registered, first run)."""
        self._cleanups.append((label, fn))

    def run_cleanups(self) -> ConformanceFailure | Inconclusive | None:
        """Run every deferred cleanup; return the first failure, having tried them all."""
        first: ConformanceFailure | Inconclusive | None = None
        while self._cleanups:
            label, fn = self._cleanups.pop()
            try:
                fn()
            except (ConformanceFailure, Inconclusive) as exc:
                first = first or exc
            except Exception as exc:
                first = first or DriverRaised(self.check_id, f"cleanup: {label}", exc)
        return first


class RecordingProxy:
    """Forwards attribute access to a driver, routing every call through a `CheckContext`."""

    def __init__(self, target: Any, ctx: CheckContext, prefix: str) -> None:
        self._target = target
        self._ctx = ctx
        self._prefix = prefix

    @property
    def unwrapped(self) -> Any:
        """The driver behind the proxy."""
        return self._target

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr
        ctx, prefix = self._ctx, self._prefix

        def call(*args: Any, **kwargs: Any) -> Any:
            shown = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
            label = f"{prefix}{name}({', '.join(shown)})"
            result = ctx.invoke(label, attr, *args, **kwargs)
            if name.startswith("as_") and result is not None:
                return RecordingProxy(as_sync(result), ctx, f"{name}().")
            return result

        return call
