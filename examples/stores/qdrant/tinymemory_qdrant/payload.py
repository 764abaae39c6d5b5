"""What a point holds: the item as a read returns it, and flat fields to filter on.

Qdrant filters by equality on keyword fields and by numeric ranges; every `MetaFilter`
field is written so that one of those decides it exactly, inside the search:

- `ns`: the namespace (`root` for the root); `ns_up`: it and every ancestor, so a
  subtree reach is one match on `ns_up` and an inheriting reach one match of `ns`
  against the reach's own ancestors;
- `folder_up`, `file_path_up`: the path and each prefix ending before a `/`, so the
  contract's path-prefix match (`/a/b` admits `/a/b/c.rs`, not `/a/bc`) is equality;
- `obs_s`, `obs_n`: `observed_at` as whole seconds and nanoseconds, each exact in a
  float (Qdrant's ranges are floats: nanoseconds since 1970 are not exact in one);
- the exact fields under their own names; `tags`, a list, matches any tag;
- `word_norm`, `trigram_norm`: the norms of the item's two vectors (`vectors.py`).
"""

from __future__ import annotations

from typing import Any

from conformance.engine import Learning, Namespace, StoreItem


def namespace_text(namespace: Namespace) -> str:
    """The namespace as the payload writes it (`root` for the root)."""
    return str(namespace)


def path_prefixes(path: str) -> list[str]:
    """`path` and every prefix of it that ends just before a `/`."""
    return [path[:i] for i, char in enumerate(path) if char == "/"] + [path]


def payload(item_id: str, item: StoreItem, word_norm: float, trigram_norm: float) -> dict[str, Any]:
    """The payload of the point holding `item` under `item_id`."""
    meta = item.meta
    held: dict[str, Any] = {
        "id": item_id,
        "kind": item.kind.value,
        "text": item.render_text(),
        "meta": meta.model_dump(mode="json"),
        "confidence": item.confidence if isinstance(item, Learning) else None,
        "ns": namespace_text(meta.namespace),
        "ns_up": [namespace_text(n) for n in meta.namespace.ancestors_and_self()],
        "source_kind": meta.source.kind.value,
        "tags": list(meta.tags),
        "word_norm": word_norm,
        "trigram_norm": trigram_norm,
    }
    exact = {
        "workspace": meta.workspace,
        "language": meta.language,
        "repo": meta.repo,
        "commit": meta.commit,
        "url": meta.url,
        "thread_id": meta.thread_id,
        "agent_id": meta.agent_id,
        "tool_call": meta.tool_call.name if meta.tool_call is not None else None,
        "source_id": meta.source.id,
        "turns": f"{meta.turns.first}-{meta.turns.last}" if meta.turns is not None else None,
    }
    held.update({name: value for name, value in exact.items() if value is not None})
    if meta.folder is not None:
        held["folder_up"] = path_prefixes(meta.folder)
    if meta.file_path is not None:
        held["file_path_up"] = path_prefixes(meta.file_path)
    if meta.observed_at is not None:
        held["obs_s"], held["obs_n"] = divmod(meta.observed_at.nanos, 1_000_000_000)
    return held
