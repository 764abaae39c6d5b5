"""The `reference` (in memory) and `sqlite` (on disk) drivers."""

from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

__all__ = ["ReferenceEngine", "ReferenceProvider"]
