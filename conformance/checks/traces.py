"""Where a driver's exception was raised: its traceback, with the kit's own frames trimmed.

A driver call's exception is caught by the kit (`CheckContext.call`), so its traceback
starts in the kit's calling machinery (the call wrapper, the time limit, the bridge to an
async driver, the event loop) before it reaches the driver. The trimmed trace starts at
the first frame outside that machinery: the driver's own code, and whatever it called.
"""

from __future__ import annotations

import sysconfig
import traceback
from collections.abc import Callable
from pathlib import Path

import conformance
from conformance.checks.outcome import CheckSkipped, ConformanceFailure, DriverRaised, Inconclusive

_KIT = Path(conformance.__file__).resolve().parent
_STDLIB = tuple(
    Path(p).resolve() for p in {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
)
_INSTALLED = tuple(
    Path(p).resolve() for p in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
)
"""Where installed packages live: under the standard library's folder outside a venv,
and a driver installed there is no machinery of the kit's."""


def _machinery(filename: str) -> bool:
    # The kit calls the driver through its own modules and the standard library's
    # threads and event loop; none of that is where the driver raised.
    try:
        path = Path(filename).resolve()
    except (OSError, ValueError):
        return False
    if path.is_relative_to(_KIT):
        return True
    if any(path.is_relative_to(p) for p in _INSTALLED):
        return False
    return any(path.is_relative_to(s) for s in _STDLIB)


def _trim(shown: traceback.TracebackException) -> bool:
    """Drop the leading machinery frames of `shown` and of the exceptions it chains;
    whether `shown` holds a frame of the driver's (if not, it is left whole)."""
    frames = list(shown.stack)
    first = next((i for i, f in enumerate(frames) if not _machinery(f.filename)), None)
    for chained in (shown.__cause__, shown.__context__):
        if chained is not None:
            _trim(chained)
    if first is None:
        return False
    shown.stack = traceback.StackSummary.from_list(frames[first:])
    return True


def driver_trace(error: BaseException, redact: Callable[[str], str]) -> str | None:
    """The traceback of `error`, raised by driver code, from the driver's first frame on
    (with what it chains), redacted; None when no frame of it is the driver's (an error
    a driver process sent over the driver protocol, say)."""
    shown = traceback.TracebackException.from_exception(error)
    if not _trim(shown):
        return None
    return redact("".join(shown.format()))


def full_trace(error: BaseException, redact: Callable[[str], str]) -> str:
    """The whole traceback of `error`, the kit's frames included (`--full-trace`), redacted."""
    return redact("".join(traceback.TracebackException.from_exception(error).format()))


_OUTCOMES = (ConformanceFailure, Inconclusive, CheckSkipped)


def driver_error(
    ending: BaseException, last_raised: BaseException | None = None
) -> BaseException | None:
    """The driver's exception a check's ending (`ConformanceFailure`, `Inconclusive`)
    came from, if it came from one.

    That is the error of a `DriverRaised` on its chain of causes, or an exception of the
    driver's it was raised from (a transient error retried in vain). A failure a check
    wrote about an error it was answered with (`attempt`) has no chain: then
    `last_raised`, the last error a driver call raised, when the failure names its type
    and message.
    """
    seen: BaseException | None = ending
    while seen is not None:
        if isinstance(seen, DriverRaised):
            return seen.error
        if not isinstance(seen, _OUTCOMES):
            return seen
        seen = seen.__cause__ or seen.__context__
    if last_raised is None:
        return None
    text, message = str(ending), str(last_raised)
    named = type(last_raised).__name__ in text and (not message or message in text)
    return last_raised if named else None
