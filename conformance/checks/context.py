"""The run context of one check: its isolated root, and every driver call it makes."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast

from pydantic import BaseModel

from conformance import clock
from conformance.bridge import as_sync
from conformance.checks.copies import edits, private_copy
from conformance.checks.evidence import compare_ids, field_differences, name_ids, show
from conformance.checks.fan_out import each
from conformance.checks.outcome import (
    CheckSkipped,
    ConformanceFailure,
    DriverRaised,
    Inconclusive,
    PreconditionFailed,
)
from conformance.checks.progress import CheckMeter
from conformance.checks.returns import wrong_error, wrong_return
from conformance.checks.seeds import nonce_for, seeded_nonce
from conformance.checks.still import in_turn
from conformance.constraints import Constraints
from conformance.driver import detect_profile
from conformance.interrupts import from_user
from conformance.redaction import Redactor
from conformance.report import Hang
from conformance.time_limit import CallExpired as CallExpired
from conformance.time_limit import TimeLimitExceeded, run_within

_counter = itertools.count()
_ROOT_PREFIX = "tinymemory-conformance"

_Cleanup = tuple[str, Callable[[], object], bool]
"""A deferred cleanup: its label, what it calls, whether it is independent of the others."""
_Ending = ConformanceFailure | Inconclusive | None


@dataclass(frozen=True)
class RunSettings:
    """How calls are made: a per-call time limit and the retry policy for transient errors."""

    timeout: float | None = 60.0
    retries: int = 3
    backoff: float = 0.1
    backoff_max: float = 2.0
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Credential values given to the driver, without their option names."""
    constraints: Constraints = field(default_factory=Constraints)
    """What the driver declares it cannot take; checks narrow their inputs by it."""
    seed: int | None = None
    """The run seed: a context made without a nonce derives it from this and its check id,
    so the same seed writes under the same roots with the same markers."""
    credentials: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The driver's credential options, by name: their values never reach a message, and
    a leak is reported under the option's name."""
    grace: float | None = None
    """Seconds a call past `timeout` is interrupted before it is abandoned (default:
    `conformance.time_limit.grace_period(timeout)`)."""
    thread_safe: bool = True
    """Whether the driver may be called from several threads at once (`Driver.thread_safe`)."""

    def redactor(self) -> Redactor:
        """The credentials of this run (named ones, then the bare `secrets`)."""
        return Redactor([*self.credentials.items(), *(("", v) for v in self.secrets)])


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


def root_separator(constraints: Constraints) -> str:
    """`/`, unless the declared namespace alphabet leaves it out: then `-`.

    A root and the names built under it hold only letters, digits, `-` and this
    separator, so a declared alphabet narrows what a check sends without leaving it
    nothing to send.
    """
    alphabet = constraints.namespace_alphabet
    return "/" if alphabet is None or "/" in alphabet else "-"


FULL_WIDTH = 4000
"""How much of one argument a failure at a call that raised shows: the call in full, but
for a batch of thousands of items."""


def describe(value: object, width: int = 60) -> str:
    """A short, one-line rendering of a call argument for messages."""
    text = _repr_head(value, width).replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def _repr_head(value: object, width: int) -> str:
    """`repr(value)`, or a prefix of it at least `width` characters long: a batch of a
    hundred items, or a model of many fields, is not rendered whole to show its first
    sixty characters (labels are made for every driver call)."""
    if isinstance(value, list):
        head = "["
        for index, item in enumerate(value):
            head += (", " if index else "") + _repr_head(item, width - len(head))
            if len(head) > width:
                return head
        return head + "]"
    if isinstance(value, BaseModel) and type(value).__repr__ is BaseModel.__repr__:
        # As pydantic renders it (`Name(field=value, ...)`), stopping once past `width`.
        head = f"{cast(Any, value).__repr_name__()}("
        for index, (name, field_value) in enumerate(value.__repr_args__()):
            if len(head) > width:
                return head
            shown = f"{name}=" if name is not None else ""
            head += (", " if index else "") + shown
            head += _repr_head(field_value, width - len(head))
        return head + ")"
    return repr(value)


def short_label(label: str) -> str:
    """The method a call label names, as the bridge names it: `as_documents().put(...)`
    is `put()`."""
    method = operation_of(label)
    return f"{method}()" if method is not None else label


def operation_of(label: str) -> str | None:
    """The operation a call label names: `store` of `store('a', ...)`, `put_document` of
    `as_documents().put_document(...)`; None when it names none."""
    named = _METHOD.match(label)
    return named.group(1) if named else None


_METHOD = re.compile(r"(?:\w+\(\)\.)*(\w+)\(")


def _is_refusal(error: BaseException) -> bool:
    # The contract's "this input is invalid" of either profile, without importing them.
    return type(error).__name__ in ("InvalidRequest", "Invalid")


def _is_transient(error: BaseException) -> bool:
    probe = getattr(error, "is_transient", None)
    return bool(probe()) if callable(probe) else False


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
        self.separator = root_separator(self.settings.constraints)
        """What joins the root's parts and the names built under it: `/`, or `-` when
        the declared namespace alphabet leaves `/` out."""
        # Letters, digits and `-` only, which any plausible declaration admits: the check
        # id's `.` and `_` would cost the check its scopes under an alphabet without them.
        slug = re.sub(r"[^A-Za-z0-9-]", "-", check_id)
        self.root = self.separator.join((_ROOT_PREFIX, self.nonce, slug))
        self.calls = 0
        self.retries = 0
        self.call_log: list[str] = []
        # A check's helpers (`fan_out`) call from several threads: no count may be lost.
        self._counting = threading.Lock()
        self.refusals: list[str] = []
        """Calls the driver refused as invalid where the kit sent valid input."""
        self.named_refusals: list[str] = []
        """Refusals the contract itself names (`constraints.NAMED_REFUSALS`) the driver
        made without declaring them: accepted, and listed in the report."""
        self.labels: dict[str, str] = {}
        """Names the check gave the ids it holds (`p11`), used by every message."""
        self.written_by: dict[str, str] = {}
        """The batch call that wrote each id (and label) it answered for (`store_many(p1–p25)`),
        named when the engine turns out not to hold one."""
        self._expecting_refusal = 0
        self._cleanups: list[_Cleanup] = []
        self.redactor = self.settings.redactor()
        """The run's credentials: kept out of every message this check writes."""
        self.last_raised: BaseException | None = None
        """The last exception a driver call raised (retried ones aside)."""
        self.progress: CheckMeter | None = None
        """Shows on the terminal how far a check that runs long has got (set by the
        runner of a whole check, not for the fuzzer's calls, which it shows itself)."""

    # -- driver calls ---------------------------------------------------------------

    def bind(self, driver: Any) -> Any:
        """A proxy of `driver` whose every call is counted, timed, given copies the kit
        keeps, checked for the return type of its profile and attributed to this check."""
        if isinstance(driver, RecordingProxy):
            return driver
        return RecordingProxy(as_sync(driver), self, "", detect_profile(driver))

    def invoke(self, label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call `fn` under the run's policy (see `call`)."""
        return self.call(label, fn, args, kwargs)

    def call(
        self,
        label: str,
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
        *,
        face: str | None = None,
        method: str | None = None,
        full_label: Callable[[], str] | None = None,
        in_turn_as: tuple[str | None, str | None] | None = None,
    ) -> Any:
        """One driver call under the run's policy; its answer, or the check's verdict.

        The driver gets copies of `args`; an edit to them fails the check at this call.
        The call runs on this thread under the time limit (past it: `Inconclusive`);
        a transient error (`Unavailable`) is retried with backoff and counted; any other
        exception of the driver's becomes `DriverRaised`, its message redacted. With
        `face` (`"engine"`, `"provider"`, `"documents"`) and `method`, the answer must be
        of the type that method returns. `full_label` renders the call with its arguments
        whole, for a failure at a call that raised (`label` may shorten them).
        `in_turn_as` names the call's method and face for checks run at once (`still`)
        where `method` and `face` are not given (they also check the answer's type).
        """
        kept_kw = kwargs or {}
        attempt = 0
        while True:
            with self._counting:
                self.calls += 1
                self.call_log.append(label)
            sent = [private_copy(a) for a in args]
            sent_kw = {k: private_copy(v) for k, v in kept_kw.items()}
            try:
                with in_turn(*(in_turn_as or (method, face))):
                    result = run_within(
                        self.settings.timeout,
                        fn,
                        sent,
                        sent_kw,
                        label=label,
                        check_id=self.check_id,
                        grace=self.settings.grace,
                    )
            except TimeLimitExceeded as exc:
                hang = Hang(call=exc.call or short_label(label), loop_blocked=exc.loop_blocked)
                raise Inconclusive(self.check_id, label, exc.reason, hang) from None
            except (ConformanceFailure, Inconclusive, CheckSkipped):
                raise
            except (Exception, SystemExit, GeneratorExit) as exc:
                self._no_edits(label, fn, sent, args, sent_kw, kept_kw)
                malformed = wrong_error(exc)
                if malformed is not None:
                    self.fail(label, *malformed)
                if not self._expecting_refusal and _is_refusal(exc):
                    self.refusals.append(label)
                if _is_transient(exc):
                    if attempt < self.settings.retries:
                        attempt += 1
                        with self._counting:
                            self.retries += 1
                        clock.sleep(
                            min(
                                self.settings.backoff * 2 ** (attempt - 1),
                                self.settings.backoff_max,
                            )
                        )
                        continue
                    self.last_raised = exc
                    raise Inconclusive(
                        self.check_id,
                        full_label() if full_label is not None else label,
                        f"the driver stayed unavailable after {attempt} retries: "
                        f"{self.redact(str(exc))}",
                        transient=True,
                    ) from exc
                self.last_raised = exc
                shown = full_label() if full_label is not None else label
                raise DriverRaised(self.check_id, shown, exc, self.redact) from exc
            except BaseException as exc:
                # A KeyboardInterrupt or a BaseException of its own raised by driver code
                # ends this check, not the run; the user's Ctrl-C and the kit's own time
                # limit go on up.
                if isinstance(exc, CallExpired) or from_user(exc):
                    raise
                self._no_edits(label, fn, sent, args, sent_kw, kept_kw)
                self.last_raised = exc
                shown = full_label() if full_label is not None else label
                raise DriverRaised(self.check_id, shown, exc, self.redact) from exc
            finally:
                if self.progress is not None:
                    self.progress.tick(self.calls)
            self._no_edits(label, fn, sent, args, sent_kw, kept_kw)
            if method is not None:
                wrong = wrong_return(face, method, result)
                if wrong is not None:
                    self.fail(label, *wrong)
            return result

    def attempt(
        self, label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, BaseException | None]:
        """A call where an error may be the right answer: `(answer, None)`, or
        `(None, the driver's error)`. Time limit, retries, copies as in `call`; a refusal
        here is not counted as refused valid input."""
        try:
            with self.answer_or_refusal():
                return self.call(label, fn, args, kwargs), None
        except DriverRaised as raised:
            return None, raised.error

    def redact(self, text: str) -> str:
        """`text` (from the driver) with every credential value replaced by `[REDACTED]`."""
        return self.redactor.text(text)

    def _no_edits(
        self,
        label: str,
        fn: Callable[..., Any],
        sent: Sequence[Any],
        kept: Sequence[Any],
        sent_kw: Mapping[str, Any],
        kept_kw: Mapping[str, Any],
    ) -> None:
        changed = edits(fn, sent, kept, sent_kw, kept_kw)
        if changed:
            self.fail(
                label,
                "the driver to leave its arguments as the caller gave them",
                "an edited argument: " + "; ".join(changed),
            )

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

    def note_named_refusal(self, name: str) -> None:
        """Note that the driver made the named refusal `name` (see `named_refusals`)."""
        if name not in self.named_refusals:
            self.named_refusals.append(name)

    # -- verdicts -------------------------------------------------------------------

    def fail(self, call: str, expected: str, got: str) -> NoReturn:
        """Fail this check at `call`; `got` (the driver's side) is redacted, `call` and
        `expected` (the kit's words) are not."""
        raise ConformanceFailure(self.check_id, call, expected, self.redact(got))

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
    def precondition(self, owner: str | Sequence[str], what: str) -> Iterator[None]:
        """Calls whose faults `owner` (a check, or the checks) testing the operation
        report: a failure inside is not this check's.

        It ends the check as inconclusive ("precondition failed: ..."), so one fault is
        reported once, by a check that owns the operation; the report names the owner
        that failed on it, if one did. Inside an owner itself, failures stay failures.
        """
        owners = (owner,) if isinstance(owner, str) else tuple(owner)
        if self.check_id in owners:
            yield
            return
        try:
            yield
        except ConformanceFailure as failure:
            raise PreconditionFailed(self.check_id, owners, what, failure) from failure

    # -- cleanup --------------------------------------------------------------------

    def defer(self, label: str, fn: Callable[[], object], *, independent: bool = False) -> None:
        """Run `fn` when the check ends, pass or fail (last registered, first run). The
        `independent` cleanups next to each other (forgets of distinct entries) may run
        several at once (`fan_out`)."""
        self._cleanups.append((label, fn, independent))

    def run_cleanups(self) -> ConformanceFailure | Inconclusive | None:
        """Run every deferred cleanup; return the first failure (in the order they run
        serially), having tried them all."""
        endings: list[_Ending] = []
        while self._cleanups:
            batch = [self._cleanups.pop()]
            while batch[-1][2] and self._cleanups and self._cleanups[-1][2]:
                batch.append(self._cleanups.pop())
            ended: list[_Ending] = [None] * len(batch)

            def clean(at: int, batch: list[_Cleanup] = batch, ended: list[_Ending] = ended) -> None:
                ended[at] = self._clean(*batch[at][:2])

            each(clean, range(len(batch)))
            endings += ended
        return next((ending for ending in endings if ending is not None), None)

    def _clean(self, label: str, fn: Callable[[], object]) -> _Ending:
        try:
            fn()
        except (ConformanceFailure, Inconclusive) as exc:
            return exc
        except Exception as exc:
            return DriverRaised(self.check_id, f"cleanup: {label}", exc, self.redact)
        return None


class RecordingProxy:
    """Forwards attribute access to a driver, routing every call through a `CheckContext`.

    `face` names what the target is (`"engine"`, `"provider"`, a family such as
    `"documents"`), so each answer is checked against that method's return type.
    """

    def __init__(
        self, target: Any, ctx: CheckContext, prefix: str, face: str | None = None
    ) -> None:
        self._target = target
        self._ctx = ctx
        self._prefix = prefix
        self._face = face

    @property
    def unwrapped(self) -> Any:
        """The driver behind the proxy."""
        return self._target

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr
        ctx, prefix, face = self._ctx, self._prefix, self._face

        def call(*args: Any, **kwargs: Any) -> Any:
            shown = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
            label = f"{prefix}{name}({', '.join(shown)})"

            def full_label() -> str:
                whole = [describe(a, FULL_WIDTH) for a in args] + [
                    f"{k}={describe(v, FULL_WIDTH)}" for k, v in kwargs.items()
                ]
                return f"{prefix}{name}({', '.join(whole)})"

            result = ctx.call(
                label, attr, args, kwargs, face=face, method=name, full_label=full_label
            )
            if name.startswith("as_") and result is not None:
                return RecordingProxy(as_sync(result), ctx, f"{name}().", name[3:])
            return result

        return call
