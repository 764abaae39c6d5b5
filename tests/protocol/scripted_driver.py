"""A driver process that answers `engine.store` calls in a scripted order, for the
pipelining tests.

    python scripted_driver.py MODE [N [ONCE_FILE]]

Every store is answered with the receipt `{"id": <the item's text>, "replayed": false}`,
so a caller can tell its own answer from another's. MODE is one of:

- `reverse`: declares `concurrent`; holds the first N calls and answers them in reverse
  order once the Nth has come, then answers at once;
- `hold`: declares `concurrent`; holds every call whose text starts with `hold`, and
  answers them all, first come first, before any other call;
- `garbage`: declares `concurrent`; once N calls are open, writes a line that is not JSON
  instead of answering; with ONCE_FILE, only the first process does (it creates the
  file), and a later one answers each call at once;
- `serial`: has no `concurrent` in its handshake; answers each call 50 ms after it came, with
  the error `Engine: overlap` if another call came meanwhile.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from conformance.driver import Driver
from conformance.protocol.codec import encode
from conformance.protocol.lines import LineReader
from conformance.protocol.server import Server
from reference_driver import ReferenceEngine


def receipt(call: dict[str, Any]) -> dict[str, Any]:
    """The answer to a store: its own item's text as the id."""
    text = call["args"]["item"]["text"]
    return {"type": "result", "id": call["id"], "result": {"id": text, "replayed": False}}


def main(mode: str, count: str = "0", once: str = "") -> int:
    out = sys.stdout.buffer

    def send(message: dict[str, Any]) -> None:
        out.write(encode(message))
        out.flush()

    lines = LineReader(sys.stdin.fileno())
    hello = json.loads(lines.readline())
    server = Server(Driver(name="scripted", engine=ReferenceEngine))
    shake = server.handshake(hello["id"], concurrent=True).model_dump(mode="json")
    if mode == "serial":
        del shake["concurrent"]  # as a driver written before the field
    send(shake)
    held: list[dict[str, Any]] = []
    seen = 0
    for line in iter(lines.readline, b""):
        message = json.loads(line)
        if message["type"] == "shutdown":
            send({"type": "result", "id": message["id"], "result": None})
            return 0
        seen += 1
        if mode == "reverse":
            held.append(message)
            if seen == int(count):
                for call in reversed(held):
                    send(receipt(call))
            elif seen > int(count):
                send(receipt(message))
        elif mode == "hold":
            if message["args"]["item"]["text"].startswith("hold"):
                held.append(message)
                continue
            for call in held:
                send(receipt(call))
            held.clear()
            send(receipt(message))
        elif mode == "garbage":
            if once and Path(once).exists():
                send(receipt(message))  # a fresh process, after the fault: well-behaved
            elif seen == int(count):
                if once:
                    Path(once).touch()
                out.write(b"this is not json\n")
                out.flush()
        else:
            time.sleep(0.05)
            if lines.has_partial or lines.fill(0):
                error = {"name": "Engine", "message": "overlap"}
                send({"type": "error", "id": message["id"], "error": error})
            else:
                send(receipt(message))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
