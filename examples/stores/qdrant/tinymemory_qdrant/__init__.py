"""Qdrant (qdrant-client in local mode) as a TinyMemory engine."""

from tinymemory_qdrant.engine import QdrantEngine

__all__ = ["QdrantEngine"]
