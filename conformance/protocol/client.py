"""The kit's side: a driver process seen as engine and provider objects.

`exec_driver(command, options)` starts the process once to learn what it offers (the
handshake), and returns a `Driver` whose factories give objects with the profile's
methods. Each object owns one process; every method is one request and one response.
A process whose handshake says `concurrent` takes calls from several threads at once,
answered by id. A process that breaks the protocol, or is abandoned mid-call by the kit's
time limit with no other call in flight, is stopped, and the object's next call starts a
fresh one.
"""

from __future__ import annotations

import atexit
import contextlib
import shlex
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

import conformance
from conformance.checks.context import CallExpired
from conformance.constraints import Constraints
from conformance.driver import Driver, DriverError
from conformance.engine import EngineDescriptor
from conformance.protocol.errors import ProtocolError
from conformance.protocol.messages import Handshake, Hello, KitInfo, Version
from conformance.protocol.operations import BY_NAME, Operation, Target, operations_of
from conformance.protocol.session import Answer, Session, validation_summary
from conformance.protocol.waits import acquire, held
from conformance.provider import Capabilities
from conformance.provider.constants import CONTRACT_VERSION
from conformance.report import redact_text, secret_values

EXEC_PREFIX = "exec:"
"""A driver spec starting with this names a command to run (`exec:node driver.js`)."""


def parse_command(command: str | Sequence[str]) -> list[str]:
    """The argument list of a driver command: a string is split as a POSIX shell would."""
    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise DriverError("the exec: driver command is empty; write exec:COMMAND [ARGS...]")
    return argv


def hello(options: Mapping[str, str]) -> Hello:
    """The kit's hello, carrying the driver's options."""
    return Hello(
        contract_version=Version(major=CONTRACT_VERSION.major, minor=CONTRACT_VERSION.minor),
        kit=KitInfo(version=conformance.__version__),
        options=dict(options),
    )


class Launcher:
    """Starts sessions of one driver command with one set of options."""

    def __init__(
        self,
        argv: Sequence[str],
        options: Mapping[str, str],
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.env = None if env is None else dict(env)
        self.hello = hello(options)
        self.options = dict(options)
        self.secrets = secret_values(options)
        self.settled = False
        """Whether the secrets are all known: the driver names more in its handshake."""

    def settle(self, secret_options: Sequence[str]) -> None:
        """Take the names of the options the driver's handshake says are credentials."""
        self.secrets = secret_values(self.options, secret_options)
        self.settled = True

    def start(self) -> Session:
        """A started process that has answered the hello."""
        return Session(self.argv, self.hello, self.secrets, settled=self.settled, env=self.env)


_live: weakref.WeakSet[Connection] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # Each process is sent `shutdown` when the kit ends, so it can flush and exit cleanly.
    for connection in list(_live):
        connection.close()


class Connection:
    """The calls of one profile object, over one process at a time.

    A process whose handshake says `concurrent` takes the calls of every thread at once; a
    caller the time limit interrupts abandons its request, and the process is replaced
    only when no other caller is using it. Any other process takes one call at a time:
    callers wait their turn, and one interrupted mid-call has its process replaced (the
    stream is out of step).
    """

    def __init__(self, launcher: Launcher, session: Session | None = None) -> None:
        self._launcher = launcher
        self._session = session
        self._lock = threading.Lock()
        """Guards `_session` and its `users`."""
        self._turn = threading.Lock()
        """Held by the call under way on a serial session."""
        _live.add(self)

    def _enter(self) -> Session:
        """The current session, started if there is none, counted as used by the caller."""
        lock = self._lock
        if not lock.acquire(blocking=False):
            acquire(lock)  # interruptible: it is held while a process starts
        try:
            session = self._session
            if session is not None and not session.usable:
                session.kill()
                session = None
            if session is None:
                session = self._session = self._launcher.start()
            session.users += 1
            return session
        finally:
            lock.release()

    def _current(self) -> Session:
        """The current session, started if there is none (to look at its process)."""
        session = self._enter()
        self._leave(session)
        return session

    def _leave(self, session: Session, abandoned: BaseException | None = None) -> None:
        """The caller is done with `session`; one that `abandoned` its call (interrupted)
        has the process replaced if no other caller is using it."""
        lock = self._lock
        if not lock.acquire(blocking=False):
            acquire(lock)
        try:
            session.users -= 1
            if abandoned is None or session.users > 0 or self._session is not session:
                return
            # Decided under the lock: no caller can take the process between.
            session.kill()
            self._replace(replace=isinstance(abandoned, CallExpired))
        finally:
            lock.release()

    def _retire(self, session: Session, *, replace: bool = False) -> None:
        session.kill()
        with held(self._lock):
            if self._session is session:
                self._replace(replace=replace)

    def _replace(self, *, replace: bool) -> None:
        """Drop the current session (stopped), starting a fresh one if `replace`; with the
        lock held."""
        self._session = None
        if replace:
            # The fresh process starts now, on the time of the call that broke the old
            # one, not on the next check's. If it cannot start, the next call says why.
            with contextlib.suppress(ProtocolError):
                self._session = self._launcher.start()

    def invoke(self, op: Operation, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
        """Call `op` with Python arguments; its Python result, or the contract's error."""
        payload = op.encode_args(args, kwargs)
        session = self._session
        if session is not None and session.usable and not session.concurrent:
            with held(self._turn):
                answer = self._in_turn(op, payload)
        else:
            session = self._enter()
            if session.concurrent:
                answer = self._pipelined(session, op, payload)
            else:
                self._leave(session)
                with held(self._turn):
                    answer = self._in_turn(op, payload)
        if answer.kind == "value":
            return answer.value
        if answer.kind == "error":
            raise answer.value
        try:
            return op.decode_result(answer.value)
        except ValidationError as exc:
            raise ProtocolError(
                f"the driver answered {op.name} with a result that is not "
                f"{op.result_name}: {validation_summary(exc)}"
            ) from None

    def _pipelined(self, session: Session, op: Operation, payload: dict[str, Any]) -> Answer:
        abandoned: BaseException | None = None
        try:
            return session.call(op, payload)
        except ProtocolError:
            # The stream broke: every caller waiting got the fault; the first replaces it.
            self._retire(session, replace=True)
            raise
        except BaseException as exc:
            abandoned = exc
            raise
        finally:
            self._leave(session, abandoned)

    def _in_turn(self, op: Operation, payload: dict[str, Any]) -> Answer:
        session = self._session
        if session is None or not session.usable:
            session = self._current()
        session.busy = True
        try:
            answer = session.call(op, payload)
        except (ProtocolError, CallExpired):
            # A fault, or the time limit interrupting the wait: the stream is out of step.
            self._retire(session, replace=True)
            raise
        except BaseException:
            self._retire(session)
            raise
        session.busy = False
        return answer

    def close(self) -> None:
        """End the current process politely (`shutdown`), if there is one."""
        with held(self._lock):
            session, self._session = self._session, None
        if session is not None:
            session.close()


class _Remote:
    """A method whose every call is one protocol request."""

    def __init__(self, op: Operation) -> None:
        self.op = op
        self.__doc__ = f"`{op.name}` over the protocol; returns {op.result_name}."

    def __get__(self, obj: _RemoteObject | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        op, connection = self.op, obj._connection

        def call(*args: Any, **kwargs: Any) -> Any:
            return connection.invoke(op, args, kwargs)

        call.__name__ = call.__qualname__ = op.method
        # Kept on the object: later lookups find it there and build nothing.
        obj.__dict__[op.method] = call
        return call


class _RemoteObject:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def close(self) -> None:
        """Send the process `shutdown` and let it exit; a later call starts a fresh one."""
        self._connection.close()

    def __init_subclass__(cls, target: Target | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for op in operations_of(target) if target else ():
            if op.method not in cls.__dict__:
                setattr(cls, op.method, _Remote(op))


class RemoteEngine(_RemoteObject, target="engine"):
    """An engine served by a driver process; `descriptor()` is the handshake's."""

    def __init__(self, connection: Connection, descriptor: EngineDescriptor) -> None:
        super().__init__(connection)
        self._descriptor = descriptor

    def descriptor(self) -> EngineDescriptor:
        """The engine descriptor the driver gave in its handshake."""
        return self._descriptor


class RemoteDocuments(_RemoteObject, target="documents"):
    """The `documents` family of a provider served by a driver process."""


class RemoteProvider(_RemoteObject, target="provider"):
    """A provider served by a driver process; `driver_id()` and `capabilities()` are the
    handshake's (the contract asks them once, at bind)."""

    def __init__(self, connection: Connection, handshake: Handshake) -> None:
        super().__init__(connection)
        self._driver_id = handshake.driver_id
        self._capabilities = Capabilities.from_wire(handshake.capabilities)

    def driver_id(self) -> str:
        """The driver id of the handshake."""
        return self._driver_id

    def capabilities(self) -> Capabilities:
        """The capabilities of the handshake."""
        return self._capabilities

    def as_documents(self) -> RemoteDocuments | None:
        """The `documents` family when the driver serves it (asked over the protocol)."""
        served = self._connection.invoke(BY_NAME["provider.as_documents"], (), {})
        return RemoteDocuments(self._connection) if served else None

    def __getattr__(self, name: str) -> Callable[[], None]:
        # The other optional families are not modelled by the kit: none is reachable.
        if name.startswith("as_"):
            return lambda: None
        raise AttributeError(name)


def _declarations(
    shake: Handshake, argv: Sequence[str]
) -> tuple[Constraints, EngineDescriptor | None]:
    """The handshake's constraints and engine descriptor (`None` without the engine
    profile); a `DriverError` for either that the kit cannot read."""
    try:
        constraints = Constraints.from_wire(shake.constraints)
    except ValueError as exc:
        problem = f"declares `constraints` in its handshake that the kit cannot read: {exc}"
        raise DriverError(f"driver `exec:{shlex.join(argv)}` {problem}") from None
    if "engine" not in shake.profiles:
        return constraints, None
    try:
        return constraints, EngineDescriptor.model_validate(shake.engine)
    except ValidationError as exc:
        problem = (
            f"offers the engine profile, but its handshake's `engine` is not an "
            f"EngineDescriptor: {validation_summary(exc)}"
        )
        raise DriverError(f"driver `exec:{shlex.join(argv)}` {problem}") from None


def exec_driver(
    command: str | Sequence[str],
    options: Mapping[str, str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> Driver:
    """The driver served by `command` over the protocol (docs/protocol.md), each of its
    processes started with `env` (default: this process's environment).

    The process is started once here, to learn from its handshake what it offers; that
    process serves the first object made, and each further object starts its own when it
    is made. `Driver.release` shuts them all down.
    """
    argv = parse_command(command)
    opts = dict(options or {})
    launcher = Launcher(argv, opts, env)
    try:
        first = launcher.start()
    except ProtocolError as exc:
        # A refusal may quote the driver's own words, which may quote its options.
        raise DriverError(redact_text(str(exc), launcher.secrets)) from None
    shake = first.handshake
    # Options the driver names secret are redacted from here on, its stderr included.
    launcher.settle(shake.secret_options)
    first.process.settle(launcher.secrets)
    try:
        constraints, descriptor = _declarations(shake, argv)
    except DriverError:
        first.kill()
        raise
    # The probe process serves the first object made; until then this connection holds
    # it, so it is shut down at the end even if no object ever takes it.
    made = [Connection(launcher, first)]
    spare = list(made)

    def connection() -> Connection:
        if spare:
            return spare.pop()
        # Started now, not at the first call: a check's time is its own, and a driver that
        # cannot start fails before any check runs.
        made.append(Connection(launcher, launcher.start()))
        return made[-1]

    def release() -> None:
        for each in made:
            each.close()

    engine: Callable[[], RemoteEngine] | None = None
    if descriptor is not None:
        offered = descriptor

        def engine() -> RemoteEngine:
            return RemoteEngine(connection(), offered)

    provider: Callable[[], RemoteProvider] | None = None
    if "provider" in shake.profiles:

        def provider() -> RemoteProvider:
            return RemoteProvider(connection(), shake)

    return Driver(
        name=shake.driver_id,
        engine=engine,
        provider=provider,
        version=shake.driver_version,
        description=f"exec: {shlex.join(argv)}",
        options=opts,
        constraints=constraints,
        release=release,
        command=tuple(argv),
        secret_options=frozenset(shake.secret_options),
        # Several threads at once only for a driver that says it takes calls in flight.
        thread_safe=shake.concurrent,
    )
