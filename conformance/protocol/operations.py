"""Every operation the kit calls over the protocol: its name, its arguments and its result.

One table serves both ends: the client encodes arguments and decodes results with it, the
server decodes arguments and encodes results with it, and the JSON Schema is generated
from it. Arguments and results travel as the contract models' own JSON
(`dump_python(mode="json")` / `validate_python`), so a change to a model flows through.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, JsonValue, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from conformance.engine import (
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from conformance.provider import (
    Capability,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
)
from conformance.provider.documents import (
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    StoredMemoryDocument,
)

R = TypeVar("R")

Target = Literal["engine", "provider", "documents"]
"""What an operation is called on: an engine, a provider, or its documents family."""


@dataclass(frozen=True)
class Param:
    """One argument: its name on the wire (the Python parameter's name) and its type."""

    name: str
    adapter: TypeAdapter[Any]


@dataclass(frozen=True)
class Operation:
    """One method of a profile, as a protocol operation `<target>.<method>`."""

    target: Target
    method: str
    params: tuple[Param, ...]
    result: TypeAdapter[Any]
    result_name: str
    """The result's type as the contract names it, for messages."""
    reply: TypeAdapter[Any]
    """A whole `result` message of this operation, read from JSON in one pass."""
    signature: inspect.Signature = field(init=False, compare=False)

    def __post_init__(self) -> None:
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        sig = inspect.Signature([inspect.Parameter(p.name, kind) for p in self.params])
        object.__setattr__(self, "signature", sig)

    @property
    def name(self) -> str:
        """The operation's name on the wire, `<target>.<method>`."""
        return f"{self.target}.{self.method}"

    def encode_args(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The call's arguments as contract JSON data, keyed by parameter name."""
        if kwargs or len(args) != len(self.params):
            bound = self.signature.bind(*args, **kwargs)
            args = tuple(bound.arguments[p.name] for p in self.params)
        return {p.name: _dump(p.adapter, value) for p, value in zip(self.params, args, strict=True)}

    def decode_args(self, data: Mapping[str, Any]) -> list[Any]:
        """Positional arguments for the driver's method, from the call's `args`."""
        missing = [p.name for p in self.params if p.name not in data]
        if missing:
            raise ValueError(f"{self.name} needs the arguments {', '.join(missing)}")
        return [p.adapter.validate_python(data[p.name]) for p in self.params]

    def encode_result(self, value: Any) -> Any:
        """The driver's return value as contract JSON data."""
        return _dump(self.result, value)

    def read_reply(self, line: bytes, request_id: int) -> tuple[bool, Any]:
        """`(True, result)` when `line` is this operation's well-formed `result` for
        `request_id` (validated from JSON in one pass); `(False, None)` otherwise, for the
        caller to examine in full."""
        try:
            reply = self.reply.validate_json(line)
        except ValueError:
            return False, None
        return reply.id == request_id, reply.result

    def decode_result(self, data: Any) -> Any:
        """The return value from contract JSON data; a `ValidationError` if it is not one."""
        return self.result.validate_python(data)


class _Reply(BaseModel, Generic[R]):
    """A `result` message whose result has the type `R`."""

    type: Literal["result"]
    id: int
    result: R


def _dump(adapter: TypeAdapter[Any], value: Any) -> Any:
    """`value` as JSON data of the adapter's type. A value of a looser type (a plain string
    for a taint, say) is read as the type first, or else sent as it is, for the other side
    to judge, as a driver in process would receive it."""
    try:
        return adapter.dump_python(value, mode="json", warnings=False)
    except PydanticSerializationError:
        pass
    try:
        return adapter.dump_python(adapter.validate_python(value), mode="json")
    except (ValidationError, PydanticSerializationError):
        return to_jsonable_python(value, fallback=repr)


def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def _op(on: Target, method: str, result: Any, name: str, /, **params: Any) -> Operation:
    reply = cast(Any, _Reply)[result]
    return Operation(
        target=on,
        method=method,
        params=tuple(Param(key, _adapter(tp)) for key, tp in params.items()),
        result=_adapter(result),
        result_name=name,
        reply=_adapter(reply),
    )


_NONE: Final = "null"

OPERATIONS: Final[tuple[Operation, ...]] = (
    _op("engine", "health", EngineHealth, "EngineHealth"),
    _op("engine", "store", StoreReceipt, "StoreReceipt", item=StoreItem),
    _op(
        "engine", "store_many", list[StoreReceipt], "a list of StoreReceipt", items=list[StoreItem]
    ),
    _op("engine", "fetch", FetchPage, "FetchPage", req=FetchRequest),
    _op("engine", "recall", RecallAnswer, "RecallAnswer", req=RecallRequest),
    _op("engine", "list", ListPage, "ListPage", req=ListRequest),
    _op("engine", "forget", ForgetReport, "ForgetReport", target=ForgetTarget),
    _op("engine", "explore", ExplorePage, "ExplorePage", req=ExploreRequest),
    _op("engine", "get", list[Hit], "a list of Hit", req=GetRequest),
    _op("provider", "health", MemoryHealth, "MemoryHealth"),
    _op("provider", "shutdown", None, _NONE),
    _op("provider", "provides", bool, "a boolean", capability=Capability),
    _op("provider", "as_documents", bool, "a boolean (whether the family is served)"),
    _op(
        "provider",
        "store",
        None,
        _NONE,
        namespace=str,
        key=str,
        content=str,
        category=MemoryCategory,
        session_id=str | None,
        taint=MemoryTaint,
    ),
    _op("provider", "get", MemoryEntry | None, "MemoryEntry or null", namespace=str, key=str),
    _op("provider", "forget", bool, "a boolean", namespace=str, key=str),
    _op(
        "provider",
        "list",
        list[MemoryEntry],
        "a list of MemoryEntry",
        namespace=str | None,
        category=MemoryCategory | None,
        session_id=str | None,
    ),
    _op("provider", "namespaces", list[NamespaceSummary], "a list of NamespaceSummary"),
    _op(
        "provider",
        "recall",
        list[MemoryEntry],
        "a list of MemoryEntry",
        query=str,
        limit=int,
        opts=OwnedRecallOpts,
        scope=SourceScope | None,
    ),
    _op("provider", "export_page", ExportPage, "ExportPage", cursor=str | None, limit=int),
    _op("provider", "import_records", ImportOutcome, "ImportOutcome", records=list[ExportRecord]),
    _op(
        "documents",
        "put_document",
        str,
        "a string (the document id)",
        document=NamespaceDocumentInput,
    ),
    _op(
        "documents",
        "get_document",
        StoredMemoryDocument | None,
        "StoredMemoryDocument or null",
        namespace=str,
        key=str,
    ),
    _op("documents", "list_documents", JsonValue, "JSON", namespace=str | None),
    _op("documents", "list_namespaces", list[str], "a list of strings"),
    _op("documents", "delete_document", JsonValue, "JSON", namespace=str, document_id=str),
    _op("documents", "clear_namespace", None, _NONE, namespace=str),
    _op(
        "documents",
        "query_documents",
        NamespaceRetrievalContext,
        "NamespaceRetrievalContext",
        namespace=str,
        query=str,
        limit=int,
    ),
    _op(
        "documents",
        "recall_documents",
        NamespaceRetrievalContext,
        "NamespaceRetrievalContext",
        namespace=str,
        limit=int,
    ),
)
"""Every operation, engine first, then provider, then the documents family."""

BY_NAME: Final[Mapping[str, Operation]] = {op.name: op for op in OPERATIONS}


def operations_of(target: Target) -> list[Operation]:
    """The operations called on `target`."""
    return [op for op in OPERATIONS if op.target == target]
