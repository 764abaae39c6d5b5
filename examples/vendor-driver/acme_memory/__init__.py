"""Acme's memory store, as a TinyMemory provider."""

from acme_memory.store import AcmeProvider

__all__ = ["AcmeProvider"]
