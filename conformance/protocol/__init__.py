"""The driver process protocol (docs/protocol.md): drivers in any language.

The kit runs a driver as a process and speaks newline-delimited JSON with it: a
handshake, then one request and one response per call, in the contract's wire JSON (several
calls in flight at once, answered by id, if the handshake says `concurrent`).
`exec_driver` (the kit's side) turns a command into a `conformance.Driver`; `serve`
(the driver's side) exposes a Python driver; `protocol_schema` is the JSON Schema of
every message.
"""

from conformance.protocol.errors import HandshakeRefused, ProtocolError
from conformance.protocol.messages import PROTOCOL_VERSION, Version
from conformance.protocol.operations import OPERATIONS, Operation

__all__ = [
    "OPERATIONS",
    "PROTOCOL_VERSION",
    "HandshakeRefused",
    "Operation",
    "ProtocolError",
    "Version",
]
