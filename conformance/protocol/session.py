"""One conversation with one driver process: the handshake, then calls, answered in order
or, for a driver that says `concurrent`, several in flight and answered by id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple

from pydantic import TypeAdapter, ValidationError

from conformance.checks.evidence import show
from conformance.protocol.codec import decode, encode
from conformance.protocol.errors import HandshakeRefused, ProtocolError, error_from_wire
from conformance.protocol.messages import (
    PROTOCOL_VERSION,
    DriverMessage,
    Handshake,
    Hello,
    Shutdown,
)
from conformance.protocol.operations import Operation
from conformance.protocol.pipeline import Pipeline, Slot, awaiting
from conformance.protocol.process import DriverProcess
from conformance.provider.constants import CONTRACT_VERSION

_DRIVER_MESSAGE: Final = TypeAdapter[Any](DriverMessage)

HANDSHAKE_TIMEOUT: Final = 60.0
"""Seconds a starting driver has to answer the hello."""


def validation_summary(error: ValidationError, limit: int = 3) -> str:
    """The first few problems of a `ValidationError`, as `where: what` on one line."""
    problems = [
        f"{'.'.join(map(str, e['loc'])) or 'the value'}: {e['msg']}" for e in error.errors()[:limit]
    ]
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


class Answer(NamedTuple):
    """What a call came back with: a decoded `value`, result `data` still to be decoded
    (it did not read as the operation's result type), or the contract `error`."""

    kind: Literal["value", "data", "error"]
    value: Any


class Session:
    """A started driver process that has answered the hello.

    `call` sends one request and reads its answer. Without `concurrent` in the handshake,
    requests never overlap (the caller sees to it), so any answer but the one awaited is
    a fault; with it, several callers may call at once and each answer goes to the
    request it names (`Pipeline`). Every `ProtocolError` it raises leaves the stream out
    of step: the caller must stop the process.
    """

    def __init__(
        self,
        argv: Sequence[str],
        hello: Hello,
        secrets: Sequence[str] = (),
        *,
        settled: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.process = DriverProcess(argv, secrets, settled=settled, env=env)
        self.busy = False
        """Whether a call of a serial session is under way."""
        self.closed = False
        self.users = 0
        """How many callers are using the session (kept by the `Connection`)."""
        self._next_id = 1
        self._pipeline: Pipeline | None = None
        try:
            self.handshake = self._shake(hello)
        except BaseException:
            self.process.kill()
            raise
        self.concurrent = self.handshake.concurrent
        """Whether several calls may be in flight at once (the handshake says so)."""
        if self.concurrent:
            self._pipeline = Pipeline(self.process, self._stray)

    @property
    def usable(self) -> bool:
        """Whether a call may still be sent: not closed, and its stream not broken."""
        return not self.closed and (self._pipeline is None or self._pipeline.fault is None)

    def _shake(self, hello: Hello) -> Handshake:
        self.process.send(encode(hello.model_dump(mode="json")))
        line = self.process.read_line(HANDSHAKE_TIMEOUT, "the hello")
        reply = self._message(line, "the answer to the hello")
        if reply.get("type") == "error" and isinstance(reply.get("error"), dict):
            body = reply["error"]
            raise HandshakeRefused(
                f"the driver process {self.process.command} refused the handshake: "
                f"{body.get('name')}: {body.get('message')}"
            )
        try:
            shake = Handshake.model_validate(reply)
        except ValidationError as exc:
            raise ProtocolError(
                f"the driver process {self.process.command} answered the hello with "
                f"{show(reply)}, which is not a handshake ({validation_summary(exc)})"
            ) from None
        self._check_versions(shake, hello)
        return shake

    def _check_versions(self, shake: Handshake, hello: Hello) -> None:
        kit = f"tinymemory-conformance {hello.kit.version}"
        if shake.protocol.major != PROTOCOL_VERSION.major:
            raise HandshakeRefused(
                f"the driver `{shake.driver_id}` speaks protocol {shake.protocol}, but {kit} "
                f"speaks protocol {PROTOCOL_VERSION.major}.x (docs/protocol.md); the major "
                f"versions must match"
            )
        if shake.contract_version.major != CONTRACT_VERSION.major:
            raise HandshakeRefused(
                f"the driver `{shake.driver_id}` implements the TinyMemory contract "
                f"{shake.contract_version}, but {kit} holds drivers to contract "
                f"{CONTRACT_VERSION.major}.x; the major versions must match (use a kit "
                f"release for contract {shake.contract_version.major})"
            )

    def _message(self, line: bytes, awaited: str) -> dict[str, Any]:
        """One decoded line that is a JSON object, or a `ProtocolError` naming what is
        wrong; `awaited` names what the kit awaited (`the answer to the hello`)."""
        try:
            data = decode(line)
        except ValueError as exc:
            raise ProtocolError(
                f"the driver process {self.process.command} wrote a line that is not JSON "
                f"while the kit awaited {awaited}: {show(line)} ({exc}); "
                f"{self.process.stderr_tail()}"
            ) from None
        if not isinstance(data, dict):
            raise ProtocolError(
                f"the driver process {self.process.command} wrote {show(data)} while the kit "
                f"awaited {awaited}; every protocol message is a JSON object"
            )
        return data

    def call(self, op: Operation, args: dict[str, Any]) -> Answer:
        """Send `op` with `args` and read the answer."""
        if self._pipeline is not None:
            return self._pipelined(self._pipeline, op, args)
        request_id = self._next_id
        self._next_id += 1
        awaited = f"{op.name} (request {request_id})"
        self.process.send(encode({"type": "call", "id": request_id, "op": op.name, "args": args}))
        line = self.process.read_line(awaited=awaited)
        return self._answer(op, line, request_id)

    def _pipelined(self, pipeline: Pipeline, op: Operation, args: dict[str, Any]) -> Answer:
        slot = pipeline.send(
            lambda request_id: encode(
                {"type": "call", "id": request_id, "op": op.name, "args": args}
            ),
            op.name,
        )
        # Interrupted, the call is abandoned: the others' answers still come. A fault of
        # the stream reaches every caller waiting.
        line = pipeline.wait(slot)
        try:
            return self._answer(op, line, slot.request_id)
        except ProtocolError as exc:
            pipeline.fail(exc)
            raise

    def _answer(self, op: Operation, line: bytes, request_id: int) -> Answer:
        """The answer `line` gives to request `request_id` of `op`."""
        # A well-formed result is read in one pass; anything else is examined in full.
        done, value = op.read_reply(line, request_id)
        if done:
            return Answer("value", value)
        awaited = f"{op.name} (request {request_id})"
        reply = self._message(line, f"the answer to {awaited}")
        if reply.get("id") == request_id:
            kind = reply.get("type")
            if kind == "result":
                return Answer("data", reply.get("result"))
            if kind == "error":
                body = reply.get("error")
                if (
                    isinstance(body, dict)
                    and isinstance(body.get("name"), str)
                    and isinstance(body.get("message"), str)
                ):
                    error = error_from_wire(op.target, body["name"], body["message"])
                    return Answer("error", error)
        raise self._misfit(reply, request_id, awaited)

    def _stray(self, line: bytes, answered: int | None, open_slots: list[Slot]) -> ProtocolError:
        """The fault of a line that answers no request open on a concurrent session."""
        awaited = awaiting(open_slots)
        try:
            reply = self._message(line, awaited)
        except ProtocolError as exc:
            return exc
        if answered is None:
            return ProtocolError(
                f"the driver process {self.process.command} wrote {show(reply)} while the "
                f"kit awaited {awaited}; it names no request (its `id` is "
                f"{show(reply.get('id'))}, not a request's number)"
            )
        others = " and no other request was open" if open_slots else ""
        return ProtocolError(
            f"the driver process {self.process.command} answered request {answered}, but "
            f"the kit awaited {awaited}{others}: {show(reply)}"
        )

    def _misfit(self, reply: dict[str, Any], request_id: int, awaited: str) -> ProtocolError:
        answered = reply.get("id")
        if isinstance(answered, int) and answered != request_id:
            return ProtocolError(
                f"the driver process {self.process.command} answered request {answered}, but "
                f"the kit awaited the answer to {awaited} and no other request was open: "
                f"{show(reply)}"
            )
        kind = reply.get("type")
        if kind not in ("result", "error", "handshake"):
            problem = f"its `type` is {show(kind)}, not `result` or `error`"
        else:
            try:
                _DRIVER_MESSAGE.validate_python(reply)
                problem = f"a {kind} is not an answer to a call"
            except ValidationError as exc:
                problem = validation_summary(exc)
        return ProtocolError(
            f"the driver process {self.process.command} answered {awaited} with "
            f"{show(reply)}, which is not a protocol response ({problem})"
        )

    def close(self, grace: float = 2.0) -> None:
        """Send `shutdown`, read its answer if one comes, and stop the process."""
        if self.closed:
            return
        self.closed = True
        try:
            if self._pipeline is not None:
                if self._pipeline.fault is None:
                    slot = self._pipeline.send(
                        lambda request_id: encode(Shutdown(id=request_id).model_dump(mode="json")),
                        "shutdown",
                    )
                    if slot.direct:
                        self.process.read_line(grace)
                    else:
                        slot.wait(grace)
            elif not self.busy:
                self.process.send(encode(Shutdown(id=self._next_id).model_dump(mode="json")))
                self.process.read_line(grace)
        except ProtocolError:
            pass  # it is being stopped either way
        finally:
            self.process.stop(grace)

    def kill(self) -> None:
        """Stop the process at once (it broke the protocol or overran a call)."""
        self.closed = True
        self.process.kill()
