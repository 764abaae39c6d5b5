"""The driver's side, for a Python driver: `tinymemory-conformance serve --driver NAME`.

Reads the kit's messages on stdin and answers on stdout, calling the driver in process.
Anything the driver prints goes to stderr, so it cannot corrupt the protocol stream. A
driver that is `thread_safe` is served `concurrent`: several calls run at once, on
threads, each answered when it is done.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import IO, Any, Final, NamedTuple, Protocol

from pydantic import ValidationError

from conformance.bridge import as_sync
from conformance.driver import Driver, DriverError
from conformance.engine import InvalidRequest
from conformance.protocol.codec import decode, encode
from conformance.protocol.errors import error_to_wire
from conformance.protocol.lines import LineReader
from conformance.protocol.messages import PROTOCOL_VERSION, Handshake, Hello, Version
from conformance.protocol.operations import BY_NAME, Operation
from conformance.provider import Capability, Invalid, Unsupported
from conformance.provider.constants import CONTRACT_VERSION

Resolver = Callable[[str, Mapping[str, str]], Driver]

SERVE_THREADS: Final = 32
"""Calls a concurrent server runs at once at most; more wait for a thread."""


def _error(message_id: int, name: str, message: str) -> dict[str, Any]:
    return {"type": "error", "id": message_id, "error": {"name": name, "message": message}}


class Server:
    """One driver's profile objects, answering calls (from several threads at once if the
    driver is thread-safe)."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.objects: dict[str, Any] = {p: as_sync(driver.make(p)) for p in sorted(driver.profiles)}
        self._documents: Any = None
        self._documents_lock = threading.Lock()

    def handshake(self, message_id: int, *, concurrent: bool = False) -> Handshake:
        """The answer to the hello: what this driver offers, and whether it takes several
        calls at once."""
        engine: Any = self.objects.get("engine")
        provider: Any = self.objects.get("provider")
        driver_id = provider.driver_id() if provider is not None else engine.descriptor().id
        return Handshake(
            id=message_id,
            protocol=PROTOCOL_VERSION,
            contract_version=Version(major=CONTRACT_VERSION.major, minor=CONTRACT_VERSION.minor),
            driver_id=driver_id,
            driver_version=self.driver.version,
            profiles=sorted(self.objects),
            capabilities=[] if provider is None else provider.capabilities().to_wire(),
            engine=None if engine is None else engine.descriptor().model_dump(mode="json"),
            constraints=self.driver.constraints.to_wire(),
            secret_options=sorted(self.driver.secret_options),
            concurrent=concurrent,
        )

    def _target(self, op: Operation) -> Any:
        if op.target != "documents":
            return self.objects.get(op.target)
        with self._documents_lock:  # asked once, whichever call asks first
            if self._documents is None and "provider" in self.objects:
                self._documents = self.objects["provider"].as_documents()
        if self._documents is None:
            raise Unsupported.of(Capability.DOCUMENTS)
        return self._documents

    def answer(self, message_id: int, name: str, args: Any) -> dict[str, Any]:
        """The response to one call."""
        op = BY_NAME.get(name)
        if op is None:
            known = ", ".join(BY_NAME)
            return _error(message_id, "Unsupported", f"no operation `{name}` (known: {known})")
        try:
            target = self._target(op)
            if target is None:
                offered = ", ".join(self.objects)
                raise DriverError(
                    f"this driver offers no {op.target} profile (it offers {offered})"
                )
            try:
                decoded = op.decode_args(args if isinstance(args, dict) else {})
            except (ValidationError, ValueError) as exc:
                refusal = InvalidRequest if op.target == "engine" else Invalid
                raise refusal(f"the arguments of {op.name} cannot be read: {exc}") from None
            if op.name == "provider.as_documents":
                result: Any = target.as_documents() is not None
            else:
                result = getattr(target, op.method)(*decoded)
            return {"type": "result", "id": message_id, "result": op.encode_result(result)}
        except Exception as exc:
            error_name, text = error_to_wire(op.target, exc)
            return _error(message_id, error_name, text)


class Lines(Protocol):
    """Where the kit's messages are read from: a binary stream, or a `LineReader`."""

    def readline(self) -> bytes:
        """The next line, newline included; `b""` at end of input."""
        ...


def serve(
    spec: str,
    options: Mapping[str, str],
    reader: Lines,
    writer: IO[bytes],
    resolve: Resolver,
) -> int:
    """Answer the kit on `reader`/`writer` until `shutdown` or end of input; the exit status."""
    write = threading.Lock()

    def send(message: dict[str, Any]) -> None:
        data = encode(message)
        with write:  # each answer goes out whole, whichever thread has it
            writer.write(data)
            writer.flush()

    first = reader.readline()
    if not first:
        return 0
    try:
        hello = Hello.model_validate(decode(first))
    except (ValueError, ValidationError) as exc:
        send(_error(0, "Protocol", f"the first message must be a hello: {exc}"))
        return 2
    if hello.contract_version.major != CONTRACT_VERSION.major:
        send(
            _error(
                hello.id,
                "Incompatible",
                f"this driver implements contract {CONTRACT_VERSION.major}."
                f"{CONTRACT_VERSION.minor}; the kit holds drivers to {hello.contract_version}",
            )
        )
        return 1
    try:
        server = Server(resolve(spec, {**options, **hello.options}))
    except DriverError as exc:
        send(_error(hello.id, "Driver", str(exc)))
        return 1
    concurrent = server.driver.thread_safe
    handshake = server.handshake(hello.id, concurrent=concurrent)
    send(handshake.model_dump(mode="json", exclude_none=True))
    if concurrent:
        return Workers(server, reader, send).run()
    for line in iter(reader.readline, b""):
        message = parse(line)
        send(respond(server, message))
        if message.kind == "shutdown":
            return 0
    return 0


class Message(NamedTuple):
    """A line of the kit's, decoded: its `type` (`None` if it has none), its `id`, and the
    whole message (or the error answering a line that is not JSON)."""

    kind: str | None
    message_id: Any
    body: Any


def parse(line: bytes) -> Message:
    """The message a line holds."""
    try:
        body = decode(line)
    except ValueError as exc:
        return Message("not json", 0, _error(0, "Protocol", f"a line that is not JSON: {exc}"))
    if not isinstance(body, dict):
        return Message(None, 0, body)
    return Message(body.get("type"), body.get("id", 0), body)


def respond(server: Server, message: Message) -> dict[str, Any]:
    """The answer to one message."""
    kind, message_id, body = message
    if kind == "not json":
        return dict(body)
    if kind == "call":
        return server.answer(message_id, body.get("op", ""), body.get("args"))
    if kind == "shutdown":
        return {"type": "result", "id": message_id, "result": None}
    return _error(message_id, "Protocol", f"a message of unknown type {kind!r}")


class Workers:
    """Threads that take turns reading the next message and then answer it, so that one
    reads while the others' calls run. A thread is added while every one is busy, up to
    `SERVE_THREADS`; `shutdown` is answered once every call read before it is.

    Handing the reading on costs a thread switch per call, which a kit making one call at
    a time would pay for nothing. So with a reader that can tell whether a line is
    waiting (`LineReader.ready`), calls are first answered one at a time on the calling
    thread, and the threads start once a call comes before the previous one is answered.
    """

    def __init__(
        self, server: Server, reader: Lines, send: Callable[[dict[str, Any]], None]
    ) -> None:
        self._server = server
        self._reader = reader
        self._send = send
        self._reading = threading.Lock()
        self._state = threading.Condition()
        self._threads = 0
        self._idle = 0
        self._busy = 0
        """Calls read and not yet answered."""
        self._done = threading.Event()

    def run(self) -> int:
        """Serve until `shutdown` or end of input; the exit status."""
        ready = getattr(self._reader, "ready", None)
        if callable(ready):
            for line in iter(self._reader.readline, b""):
                message = parse(line)
                answer = respond(self._server, message)
                # Looked at before answering: a line already there came while the call
                # ran, so the kit has calls in flight together.
                overlapped = bool(ready())
                self._send(answer)
                if message.kind == "shutdown":
                    return 0
                if overlapped:
                    break
            else:
                return 0
        self._add()
        self._done.wait()
        return 0

    def _add(self) -> None:
        # With `_state` held, or before any thread runs.
        self._threads += 1
        self._idle += 1
        threading.Thread(target=self._work, name="tinymemory-serve", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._reading:
                if self._done.is_set():
                    return
                line = self._reader.readline()
                if not line:
                    self._done.set()
                    return
                message = parse(line)
                if message.kind == "shutdown":
                    # Nothing is read after it; the calls read before it are answered first.
                    with self._state:
                        self._state.wait_for(lambda: self._busy == 0)
                    self._send(respond(self._server, message))
                    self._done.set()
                    return
                with self._state:
                    self._busy += 1
                    self._idle -= 1
                    if self._idle == 0 and self._threads < SERVE_THREADS:
                        self._add()  # someone must be reading while this call runs
            try:
                self._send(respond(self._server, message))
            finally:
                with self._state:
                    self._busy -= 1
                    self._idle += 1
                    self._state.notify_all()


def serve_stdio(spec: str, options: Mapping[str, str], resolve: Resolver) -> int:
    """`serve` on this process's stdin and stdout; the driver's own output goes to stderr."""
    # The protocol keeps a private copy of stdout; fd 1 then points at stderr, so a print
    # in the driver (or in a library it calls) lands in the log, not in the stream.
    writer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    with writer:
        return serve(spec, options, LineReader(sys.stdin.fileno()), writer, resolve)
