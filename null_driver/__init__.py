"""The `null` driver: retains nothing, every call succeeds empty."""

from null_driver.engine import NullEngine
from null_driver.provider import NullProvider

__all__ = ["NullEngine", "NullProvider"]
