"""A TinyMemory provider over any LangGraph `BaseStore` (here its `InMemoryStore`)."""

from tinymemory_langgraph.embedding import HashedWords
from tinymemory_langgraph.provider import BaseStoreProvider, memory_provider

__all__ = ["BaseStoreProvider", "HashedWords", "memory_provider"]
