"""A driver process that breaks the protocol on purpose, for the fault tests.

    python fault_driver.py FAULT [OP [ONCE_FILE]]

It serves the reference driver over the protocol, except that it misbehaves the first
time the kit calls `OP` (every time when no `ONCE_FILE` is given; with one, only in the
first process to reach `OP`, which then creates the file). FAULT is one of: `hang`, `exit`
(after writing its options to stderr), `garbage`, `wrong-id`, `wrong-shape`, `bad-result`,
`unavailable` (answers the contract's transient `Unavailable`), `old-contract`,
`new-protocol`, `bad-constraints` (declares a limit of the wrong type), `bad-descriptor`
(an engine descriptor without its fields), `mute` (never answers the hello), `refuse`
(refuses the hello).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from conformance.driver import Driver
from conformance.protocol.codec import encode
from conformance.protocol.server import Server
from reference_driver import ReferenceEngine, ReferenceProvider


def main(fault: str, op: str = "", once: str = "") -> int:
    out = sys.stdout.buffer

    def send(message: dict[str, Any]) -> None:
        out.write(encode(message))
        out.flush()

    hello = json.loads(sys.stdin.buffer.readline())
    if fault == "mute":
        time.sleep(3600)
    if fault == "refuse":
        reason = f"come back later (options {hello['options']})"
        send({"type": "error", "id": 0, "error": {"name": "Busy", "message": reason}})
        return 1
    server = Server(Driver(name="faulty", engine=ReferenceEngine, provider=ReferenceProvider))
    shake = server.handshake(hello["id"]).model_dump(mode="json", exclude_none=True)
    if fault == "old-contract":
        shake["contract_version"] = {"major": 3, "minor": 0}
    if fault == "new-protocol":
        shake["protocol"] = {"major": 2, "minor": 1}
    if fault == "bad-constraints":
        shake["constraints"] = {"max_key_length": "forty"}
    if fault == "bad-descriptor":
        shake["engine"] = {"id": "faulty"}
    send(shake)
    for line in iter(sys.stdin.buffer.readline, b""):
        message = json.loads(line)
        if message["type"] == "shutdown":
            send({"type": "result", "id": message["id"], "result": None})
            return 0
        if message["op"] == op and not (once and Path(once).exists()):
            if once:
                Path(once).touch()
            misbehave(fault, message, hello, send)
            continue
        send(server.answer(message["id"], message["op"], message["args"]))
    return 0


def misbehave(fault: str, message: dict[str, Any], hello: dict[str, Any], send: Any) -> None:
    if fault == "hang":
        time.sleep(3600)
    if fault == "exit":
        print(f"dying with options {hello['options']}", file=sys.stderr, flush=True)
        sys.exit(3)
    if fault == "garbage":
        sys.stdout.buffer.write(b"this is not json\n")
        sys.stdout.buffer.flush()
    if fault == "wrong-id":
        send({"type": "result", "id": message["id"] + 7, "result": None})
    if fault == "wrong-shape":
        send({"id": message["id"], "value": 1})
    if fault == "unavailable":
        error = {"name": "Unavailable", "message": "warming up"}
        send({"type": "error", "id": message["id"], "error": error})
    if fault == "bad-result":
        send({"type": "result", "id": message["id"], "result": {"buckets": "many"}})


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
