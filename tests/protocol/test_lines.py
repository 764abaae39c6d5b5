"""`LineReader`: lines from a pipe, polled for briefly before the reader sleeps."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from conformance.protocol import lines
from conformance.protocol.lines import LineReader


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_lines_split_and_a_last_line_without_newline(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    os.write(write_end, b'{"a":1}\n{"b":2}\npartial')
    os.close(write_end)
    reader = LineReader(read_end)
    assert reader.readline() == b'{"a":1}\n'
    assert reader.readline() == b'{"b":2}\n'
    assert reader.readline() == b"partial"
    assert reader.readline() == b""


def test_a_line_longer_than_one_read_is_whole(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    line = b"x" * (3 * lines.READ_SIZE) + b"\n"
    writer = threading.Thread(target=os.write, args=(write_end, line))
    writer.start()
    assert LineReader(read_end).readline() == line
    writer.join()


def test_fill_says_when_the_time_ran_out(pipe: tuple[int, int]) -> None:
    read_end, _ = pipe
    reader = LineReader(read_end, spin=0.001)
    started = time.monotonic()
    assert reader.fill(0.05) is None
    assert 0.04 <= time.monotonic() - started < 2.0


def test_polls_only_while_lines_come_quickly(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    reader = LineReader(read_end, spin=0.002)
    assert reader.polling
    late = threading.Timer(0.1, os.write, args=(write_end, b"late\n"))
    late.start()
    assert reader.readline() == b"late\n"
    late.join()
    # A wait far past the window: the next wait sleeps at once.
    assert not reader.polling
    os.write(write_end, b"soon\n")
    assert reader.readline() == b"soon\n"
    assert reader.polling


def test_never_polls_on_one_core(monkeypatch: pytest.MonkeyPatch, pipe: tuple[int, int]) -> None:
    monkeypatch.setattr(lines, "_cores", lambda: 1)
    assert lines.default_spin() == 0.0
    assert not LineReader(pipe[0]).polling
    monkeypatch.setattr(lines, "_cores", lambda: 2)
    assert lines.default_spin() == lines.SPIN


def test_a_descriptor_past_1023(pipe: tuple[int, int]) -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft <= 1500:
        pytest.skip(f"this process may open {soft} descriptors, fewer than 1501")
    read_end, write_end = pipe
    high = os.dup2(read_end, 1500)
    try:
        os.write(write_end, b"high\n")
        assert LineReader(high).readline() == b"high\n"
    finally:
        os.close(high)


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals need main"
)
def test_a_signal_handler_that_raises_ends_the_wait(pipe: tuple[int, int]) -> None:
    # The kit's time limit interrupts a call waiting on the main thread this way.
    class Expired(Exception):
        pass

    def expire(signum: int, frame: object) -> None:
        raise Expired

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        with pytest.raises(Expired):
            LineReader(pipe[0]).fill(None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
