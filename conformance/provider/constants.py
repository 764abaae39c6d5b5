"""Constants of the provider contract (A1)."""

from __future__ import annotations

from typing import Final, NamedTuple


class ContractVersion(NamedTuple):
    """A contract version; only the major number decides compatibility."""

    major: int
    minor: int


GLOBAL_NAMESPACE: Final = "global"
"""The namespace a driver uses when a caller passes none."""

CONTRACT_VERSION: Final = ContractVersion(2, 2)
"""The provider contract version this package implements."""

MAX_NAMESPACE_LEN: Final = 200
"""The longest namespace accepted, in UTF-8 bytes."""

NULL_DRIVER_ID: Final = "null"
"""`driver_id()` of the driver that retains nothing."""

REFERENCE_DRIVER_ID: Final = "reference"
"""`driver_id()` of the in-memory reference driver."""

ENTRY_KIND: Final = "entry"
"""`ExportRecord.kind` of a core entry exported by the mandatory composition."""

SCOPE_UNAPPLIED: Final = (
    "source scope is not applied by this driver's recall path yet: the scope predicate "
    "belongs inside the query and lands with the tree capability family"
)
"""Why a mandatory-only driver refuses `recall` with a `SourceScope`."""

INBOUND_SCAN_LIMIT: Final = 4096
"""Inbound relations scanned per predicate by the default graph view."""


def is_compatible(remote: tuple[int, int]) -> bool:
    """Whether a remote `(major, minor)` contract version can bind: same major version."""
    return remote[0] == CONTRACT_VERSION.major
