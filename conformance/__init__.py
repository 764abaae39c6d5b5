"""tinymemory-conformance: the TinyMemory contract in Python, and the kit that holds drivers to it."""

from conformance.bridge import SyncFace, as_sync
from conformance.driver import (
    PROFILES,
    Driver,
    DriverError,
    Profile,
    ProfileNotOffered,
    detect_profile,
    missing_methods,
    reject_options,
)

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "Driver",
    "DriverError",
    "Profile",
    "ProfileNotOffered",
    "SyncFace",
    "__version__",
    "as_sync",
    "detect_profile",
    "missing_methods",
    "reject_options",
]
