"""LangGraph's `SqliteStore` as a TinyMemory provider."""

from tinymemory_langgraph_sqlite.store import SqliteProvider

__all__ = ["SqliteProvider"]
