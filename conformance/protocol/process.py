"""One running driver process: its pipes, its exit status and the tail of its stderr."""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Final

from conformance import clock
from conformance.protocol.errors import ProtocolError
from conformance.protocol.lines import LineReader
from conformance.report import redact_text as _redact

READ_SLICE: Final = 0.05
"""Seconds one wait for the driver's answer lasts before the kit may be interrupted."""

STDERR_LINES: Final = 20
"""Lines of the driver's stderr kept to show when it fails."""

STDERR_LINE_WIDTH: Final = 400
"""Characters of one stderr line shown."""

STDERR_HELD_LINES: Final = 200
"""Lines of stderr held back from the log until the handshake names every secret."""

log = logging.getLogger("tinymemory.driver")
"""The driver's stderr, line by line (redacted), at DEBUG level."""


class DriverProcess:
    """A driver started from `argv`, speaking on its stdin and stdout.

    Its stderr is drained on a daemon thread (so a chatty driver never blocks on a full
    pipe) into a short tail, redacted when shown. The process leads its own session, so
    stopping it stops whatever it started (a shell's children included).
    """

    def __init__(
        self,
        argv: Sequence[str],
        secrets: Sequence[str] = (),
        *,
        settled: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """`settled=False`: more secrets may be learnt (from the handshake), so the stderr
        lines are held back from the log until `settle` says which. `env`: the process's
        environment (default: this one's)."""
        self.argv = list(argv)
        self.secrets = tuple(secrets)
        self._log_lock = threading.Lock()
        self._unlogged: list[str] | None = None if settled else []
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=None if env is None else dict(env),
            )
        except OSError as exc:
            raise ProtocolError(
                f"the driver command {self.command} could not be started: {exc}"
            ) from None
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self._stdin: IO[bytes] = self._proc.stdin
        self._stdout = LineReader(self._proc.stdout.fileno())
        self._tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._drained = threading.Event()
        threading.Thread(
            target=self._drain, args=(self._proc.stderr,), name="tinymemory-stderr", daemon=True
        ).start()

    @property
    def command(self) -> str:
        """The command line, quoted as a shell would need it."""
        return _redact(shlex.join(self.argv), self.secrets)

    @property
    def pid(self) -> int:
        """The process id."""
        return self._proc.pid

    def _drain(self, stream: IO[bytes]) -> None:
        try:
            for raw in iter(stream.readline, b""):
                # Kept as written and redacted when shown: a secret may be named later.
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._tail.append(line)
                with self._log_lock:
                    if self._unlogged is None:
                        self._log(line)
                    elif len(self._unlogged) < STDERR_HELD_LINES:
                        self._unlogged.append(line)
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the process is being stopped
        finally:
            self._drained.set()

    def _shown(self, line: str) -> str:
        line = _redact(line, self.secrets)
        return line if len(line) <= STDERR_LINE_WIDTH else line[:STDERR_LINE_WIDTH] + "…"

    def _log(self, line: str) -> None:
        log.debug("%s: %s", self.argv[0], self._shown(line))

    def settle(self, secrets: Sequence[str]) -> None:
        """The secrets are now all known: log the stderr lines held back, redacted."""
        with self._log_lock:
            self.secrets = tuple(secrets)
            held, self._unlogged = self._unlogged or [], None
            for line in held:
                self._log(line)

    def stderr_tail(self) -> str:
        """The last lines the driver wrote on stderr (redacted), or a note that it wrote none."""
        # A process that just died may still have lines in flight to the drain thread.
        if self._proc.poll() is not None:
            self._drained.wait(1.0)
        lines = [self._shown(line) for line in self._tail]
        if not lines:
            return "it wrote nothing on stderr"
        return "its stderr ended:\n    " + "\n    ".join(lines)

    def send(self, data: bytes) -> None:
        """Write one message line; a process that is gone is a `ProtocolError`."""
        try:
            self._stdin.write(data)
            self._stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self.gone("while the kit wrote to it") from None

    def read_line(
        self, timeout: float | None = None, awaited: str | Callable[[], str] = ""
    ) -> bytes:
        """The next line of stdout; `timeout` bounds the wait for a first byte (the
        handshake). EOF is a `ProtocolError` naming what was `awaited` (a function: what
        is awaited when the line fails to come).

        Off the main thread the wait is made in short slices, so the kit's time limit can
        interrupt it there too (a blocking wait cannot be interrupted but by a signal,
        and signals reach the main thread only).
        """
        deadline = None if timeout is None else clock.monotonic() + timeout
        on_main = threading.current_thread() is threading.main_thread()
        while True:
            line = self._stdout.take_line()
            if line is not None:
                return line
            wait: float | None = None if on_main else READ_SLICE
            if deadline is not None and not self._stdout.has_partial:
                left = deadline - clock.monotonic()
                if left <= 0:
                    raise ProtocolError(
                        f"the driver process {self.command} said nothing within "
                        f"{timeout:g} s of being started; {self.stderr_tail()}"
                    )
                wait = left if wait is None else min(wait, left)
            try:
                read = self._stdout.fill(wait)
            except (OSError, ValueError):
                read = False
            if read is False:
                if self._stdout.has_partial:
                    # A last line without its newline: the decoder says what is wrong.
                    return self._stdout.take_rest()
                what = awaited() if callable(awaited) else awaited
                raise self.gone(f"before answering {what}" if what else "before answering")

    @property
    def stdout(self) -> LineReader:
        """The reader of the process's stdout (`read_line` is the way to read it)."""
        return self._stdout

    def exit_status(self, wait: float = 2.0) -> int | None:
        """The exit status, waiting up to `wait` seconds for it; `None` if still running."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._proc.wait(wait)
        return None

    def describe_exit(self, wait: float = 2.0) -> str:
        """How the process ended: `exited with status 3`, `was killed by signal 9`."""
        status = self.exit_status(wait)
        if status is None:
            return "closed its stdout but is still running"
        if status < 0:
            try:
                name = signal.Signals(-status).name
            except ValueError:
                name = str(-status)
            return f"was killed by signal {name}"
        return f"exited with status {status}"

    def gone(self, when: str) -> ProtocolError:
        """The error for a process found gone (`when`: what the kit was doing)."""
        return ProtocolError(
            f"the driver process {self.command} {self.describe_exit()} {when}; {self.stderr_tail()}"
        )

    def stop(self, grace: float = 2.0) -> None:
        """Close its stdin, give it `grace` seconds to exit, then kill its process group."""
        with contextlib.suppress(OSError, ValueError):
            self._stdin.close()
        if self.exit_status(grace) is None:
            self.kill()

    def kill(self) -> None:
        """Kill the process and everything it started, at once."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(5.0)
