"""Calls in flight on one driver process at once, each answer handed to its caller by id.

For a driver whose handshake says `concurrent`. A caller writes its request whole under a
lock and waits for the answer that names its id. While one call at a time is in flight,
its caller reads the answer itself, as on a serial session (a thread switch per call
would cost more than a short call). Once a call is made while another is in flight, one
reader thread reads every answer from then on and fills the slot of the request it
names. The reader is no caller's thread, so the time limit, which interrupts the thread
of the call past its limit, never cuts a read in half: a caller it interrupts abandons
its request (a late answer to it is dropped) and leaves the stream in step for the
others. A fault of the stream (the process gone, a line that names no open request)
fails every caller waiting, each with the same message.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Final

from pydantic import BaseModel, ConfigDict, ValidationError

from conformance.protocol.errors import ProtocolError
from conformance.protocol.process import DriverProcess
from conformance.protocol.waits import acquire

_LEADING_ID: Final = re.compile(
    rb'\s*\{\s*(?:"type"\s*:\s*"(?:result|error)"\s*,\s*)?"id"\s*:\s*(\d+)\s*[,}]'
)
"""A message's `id` when it is its first key, or comes right after its `type`: how the
kit's `serve` and most JSON writers order them, read without decoding the line."""


class _Id(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    id: int


def reply_id(line: bytes) -> int | None:
    """The `id` a message line carries; `None` if it is not a JSON object with an integer
    `id`."""
    found = _LEADING_ID.match(line)
    if found is not None:
        return int(found[1])
    try:
        # pydantic-core skips the other values without building them.
        return _Id.model_validate_json(line).id
    except ValidationError:
        return None


class Slot:
    """One request in flight: its id, what the kit awaits, and, once read, its answer."""

    __slots__ = ("_ready", "direct", "error", "line", "name", "request_id")

    def __init__(self, request_id: int, name: str, *, direct: bool) -> None:
        self.request_id = request_id
        self.name = name
        """What is called: `engine.store`."""
        self.direct = direct
        """Whether its caller reads the answer itself (no other call was in flight)."""
        self.line = b""
        self.error: ProtocolError | None = None
        # Released when the answer is in; a caller reading its own answer needs none.
        self._ready: threading.Lock | None = None
        if not direct:
            self._ready = threading.Lock()
            self._ready.acquire()

    @property
    def awaited(self) -> str:
        """The request as messages name it: `engine.store (request 7)`."""
        return f"{self.name} (request {self.request_id})"

    def fill(self, line: bytes) -> None:
        """Hand the caller its answer."""
        self.line = line
        if self._ready is not None:
            self._ready.release()

    def fail(self, error: ProtocolError) -> None:
        """Hand the caller the stream's fault instead."""
        self.error = error
        if self._ready is not None:
            self._ready.release()

    def wait(self, timeout: float | None = None) -> bytes | None:
        """The answer line, waiting up to `timeout` seconds (`None` if it did not come);
        the stream's fault if it broke. Not for a `direct` slot."""
        assert self._ready is not None
        if not acquire(self._ready, timeout):
            return None
        if self.error is not None:
            # Each caller raises an exception of its own (one traceback per thread).
            raise ProtocolError(str(self.error))
        return self.line


def awaiting(slots: list[Slot]) -> str:
    """What the kit awaits, as a fault message names it: `the answer to A (request 1)`,
    `the answers to A (request 1), B (request 2)`."""
    if len(slots) == 1:
        return f"the answer to {slots[0].awaited}"
    if slots:
        return "the answers to " + ", ".join(slot.awaited for slot in slots)
    return "no answer"


Stray = Callable[[bytes, "int | None", list[Slot]], ProtocolError]
"""Builds the fault for a line that answers no open request: the line, the id it names
(`None`: none), and the requests open."""


class Pipeline:
    """The requests in flight on one process, and the reading of their answers."""

    def __init__(self, process: DriverProcess, stray: Stray, first_id: int = 1) -> None:
        self._process = process
        self._lines = process.stdout
        self._stray = stray
        self._lock = threading.Lock()
        """Guards the table: open and abandoned requests, the next id, who reads, the
        fault."""
        self._writing = threading.Lock()
        self._open: dict[int, Slot] = {}
        self._abandoned: set[int] = set()
        self._next_id = first_id
        self._direct: Slot | None = None
        """The request whose caller is reading its own answer."""
        self._threaded = False
        """Whether the reader thread reads every answer (from the first overlap on)."""
        self.fault: ProtocolError | None = None
        """What broke the stream, once it broke: no request is sent after it."""

    def send(self, message: Callable[[int], bytes], name: str) -> Slot:
        """Write the request `message(id)` (of the operation `name`) under the next id;
        its slot, to `wait` on.

        Interrupted while writing, the kit cannot know how much of the line went out: the
        stream is then broken for every caller."""
        writing = self._writing
        if not writing.acquire(blocking=False):
            acquire(writing)  # interruptible: a write to a full pipe blocks
        try:
            with self._lock:
                if self.fault is not None:
                    raise ProtocolError(str(self.fault))
                request_id = self._next_id
                self._next_id += 1
                # Alone in flight, unless the reader thread reads for everyone.
                direct = not self._threaded and self._direct is None
                slot = Slot(request_id, name, direct=direct)
                self._open[request_id] = slot
                if direct:
                    self._direct = slot
            try:
                self._process.send(message(request_id))
            except ProtocolError as exc:
                self.fail(exc)
                raise
            except BaseException:
                self.fail(
                    ProtocolError(
                        f"the kit was interrupted while writing {slot.awaited} to the driver "
                        f"process {self._process.command}, so the stream can no longer be "
                        f"trusted"
                    )
                )
                raise
        finally:
            writing.release()
        return slot

    def wait(self, slot: Slot) -> bytes:
        """The answer to `slot`'s request; the stream's fault if it broke. Interrupted
        (the time limit), the request is abandoned: its answer will be dropped."""
        try:
            if slot.direct:
                return self._read_own(slot)
            line = slot.wait()
            assert line is not None  # waited without a timeout
            return line
        except ProtocolError:
            raise
        except BaseException:
            if slot.direct and self._lines.in_hand:
                # Cut between taking bytes from the pipe and handing them on: they may be
                # lost, and with them the stream's framing.
                self.fail(
                    ProtocolError(
                        f"the kit was interrupted while reading from the driver process "
                        f"{self._process.command}, so the stream can no longer be trusted"
                    )
                )
            self.abandon(slot)
            raise
        finally:
            if slot.direct:
                with self._lock:
                    self._direct = None
                    # Another call came meanwhile: a thread reads for everyone from now on.
                    if self._open and not self._threaded and self.fault is None:
                        self._threaded = True
                        threading.Thread(
                            target=self._read, name="tinymemory-protocol-reader", daemon=True
                        ).start()

    def _read_own(self, slot: Slot) -> bytes:
        """Read answers until `slot`'s comes, handing on any other's."""
        self._lines.in_hand = False
        while True:
            try:
                line = self._process.read_line(awaited=self._awaited)
            except ProtocolError as exc:
                self.fail(exc)
                raise
            fault = self._dispatch(line)
            self._lines.in_hand = False
            if fault is not None:
                raise ProtocolError(str(fault))
            if slot.error is not None:
                raise ProtocolError(str(slot.error))
            if slot.line:
                return slot.line

    def abandon(self, slot: Slot) -> None:
        """Give up waiting on `slot`: a late answer to it is dropped."""
        with self._lock:
            if self._open.pop(slot.request_id, None) is not None:
                self._abandoned.add(slot.request_id)

    def fail(self, error: ProtocolError) -> None:
        """The stream broke: every caller waiting gets `error`, and no request is sent."""
        with self._lock:
            if self.fault is None:
                self.fault = error
            waiting = list(self._open.values())
            self._open.clear()
        for slot in waiting:
            slot.fail(error)

    def _awaited(self) -> str:
        """The requests open, as `before answering ...` names them."""
        with self._lock:
            slots = sorted(self._open.values(), key=lambda slot: slot.request_id)
        return ", ".join(slot.awaited for slot in slots)

    def _dispatch(self, line: bytes) -> ProtocolError | None:
        """Hand `line` to the request it answers; the fault if it answers none open (every
        caller waiting then has it)."""
        request_id = reply_id(line)
        with self._lock:
            slot = None if request_id is None else self._open.pop(request_id, None)
            if slot is None:
                if request_id in self._abandoned:
                    self._abandoned.discard(request_id)
                    return None
                still_open = sorted(self._open.values(), key=lambda s: s.request_id)
        if slot is not None:
            slot.fill(line)
            return None
        fault = self._stray(line, request_id, still_open)
        self.fail(fault)
        return fault

    def _read(self) -> None:
        while self.fault is None:
            try:
                line = self._process.read_line(awaited=self._awaited)
            except ProtocolError as exc:
                self.fail(exc)
                return
            except (OSError, ValueError) as exc:  # the pipe closed under us: being stopped
                self.fail(ProtocolError(f"the driver process {self._process.command}: {exc}"))
                return
            if self._dispatch(line) is not None:
                return
