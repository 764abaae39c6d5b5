"""Drivers that test the verdict: ones that end a check, a worker or a build in every way
a real driver can, and one whose fault depends on the run's markers."""

from __future__ import annotations

import fcntl
import os
import zlib
from pathlib import Path
from typing import Any

from conformance import Driver
from conformance.provider import Capabilities, ExportPage, MemoryDocuments, MemoryEntry
from reference_driver import ReferenceEngine
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver


class DriverBaseException(BaseException):
    """A BaseException of the driver's own."""


class RaisesInExport(ReferenceProvider):
    """`export_page` raises `ERROR`: only the two export checks call it."""

    ERROR: BaseException = SystemExit(3)

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        raise self.ERROR


class ExitsInExport(RaisesInExport):
    ERROR = SystemExit(3)


class InterruptsInExport(RaisesInExport):
    ERROR = KeyboardInterrupt()


class GeneratorExitInExport(RaisesInExport):
    ERROR = GeneratorExit()


class CustomBaseExceptionInExport(RaisesInExport):
    ERROR = DriverBaseException("the driver's own")


class DiesInExport(ReferenceProvider):
    """`export_page` ends the process at once, as a segfault in a native client would."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        os._exit(7)


class MandatoryFamiliesOnly(ReferenceProvider):
    """The reference provider without the optional `documents` family."""

    def capabilities(self) -> Capabilities:
        return Capabilities.mandatory()

    def as_documents(self) -> MemoryDocuments | None:
        return None


class DescriptorRaises(ReferenceEngine):
    """`descriptor()` raises, so the checks cannot be parametrised by fetch mode."""

    def descriptor(self) -> Any:
        raise RuntimeError("descriptor service down")


replay_engine = Driver(name="replay-engine", engine=ReferenceEngine)
"""A driver whose name holds a check's name."""


class Garbles(ReferenceProvider):
    """Gives back every entry's content with ` (garbled)` appended (except the retention
    probe's, so the storage checks run): every check that reads one back fails, with the
    run's marker in its message."""

    def garbles(self, namespace: str) -> bool:
        return not namespace.endswith("/probe")

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        entry = super().get(namespace, key)
        if entry is not None and self.garbles(namespace):
            return entry.model_copy(update={"content": entry.content + " (garbled)"})
        return entry


class MarkerSensitive(Garbles):
    """Garbles under about half of all namespaces, chosen by a hash of the namespace:
    whether a check fails depends only on its markers, so on its seed."""

    def garbles(self, namespace: str) -> bool:
        return super().garbles(namespace) and zlib.crc32(namespace.encode()) % 2 == 1


class LockedStore(ReferenceProvider):
    """An embedded store one process alone may open: it holds an exclusive lock on its
    folder for as long as it is open (Qdrant local with `path=`, say)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        self._folder_lock = (folder / ".lock").open("w")
        try:
            fcntl.flock(self._folder_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._folder_lock.close()
            raise RuntimeError(
                f"storage folder {path} is already accessed by another process"
            ) from None

    def shutdown(self) -> None:
        self._folder_lock.close()


def locked_store(options: dict[str, str]) -> Driver:
    """The driver of `LockedStore`, at the folder the option `path` names."""
    return Driver(name="locked", provider=lambda: LockedStore(options["path"]))


def _misconfigured_fuzz() -> Driver:
    from hypothesis import strategies as st

    from conformance.fuzz import ProviderFuzzConfig

    # Namespaces outside the run root: the fuzzer refuses to run with them.
    config = ProviderFuzzConfig(namespaces=st.just("conversation:outside-the-root"))
    return Driver(
        name="misconfigured", provider=ReferenceProvider, fuzz_configs={"provider": config}
    )


misconfigured_fuzz = _misconfigured_fuzz()
"""A driver whose fuzz configuration cannot run."""


class AsyncExitsInExport(AsyncOver):
    """An async provider whose `export_page` raises `SystemExit` inside its coroutine."""

    ERROR: BaseException = SystemExit(3)

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())

    async def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        raise self.ERROR


class AsyncInterruptsInExport(AsyncExitsInExport):
    ERROR = KeyboardInterrupt()
