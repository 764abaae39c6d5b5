"""A driver that writes 1 MiB on the kit's stdout when it is built, and again in a check."""

from __future__ import annotations

import sys

from conformance.provider import MemoryHealth
from reference_driver.provider import ReferenceProvider

MIB = 1 << 20
LINE = "chatter " * 15 + "\n"
"""One line of the chatter: 121 characters."""


def chatter(last: str) -> None:
    """About 1 MiB of lines on stdout, then `last` on a line of its own."""
    sys.stdout.write(LINE * (MIB // len(LINE)))
    sys.stdout.write(f"{last}\n")
    sys.stdout.flush()


class Chatty(ReferenceProvider):
    """Writes 1 MiB on stdout when it is built, and again in `health`, which then answers
    `None` (so `provider.health` fails and shows what it wrote)."""

    def __init__(self) -> None:
        super().__init__()
        chatter("the last line the constructor wrote")

    def health(self) -> MemoryHealth:
        chatter("the last line health wrote")
        return None  # type: ignore[return-value]
