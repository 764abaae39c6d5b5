"""How a failure shows its evidence: values as `repr`, differences by field, ids by label.

A message is the only thing a vendor has to go on, so it must show what came back
exactly (a lost `\\r` or a NUL visible), name the fields that differ rather than cut a
long rendering, and name opaque ids by the labels the check gave them, with counts
("got 10 of 15; missing p11–p15").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any

from pydantic import BaseModel

__all__ = ["compare_ids", "field_differences", "name_ids", "show"]

SHOW_LIMIT = 600
"""Characters of one rendered value kept before the middle is elided (its length said)."""

NAMED_IDS = 12
"""Ids or labels named one by one before the rest are counted."""


def show(value: object, limit: int = SHOW_LIMIT) -> str:
    """`value` as `repr` (so control characters show), on one line; a rendering over
    `limit` keeps its head and tail and says how much was left out."""
    text = value if isinstance(value, _Shown) else repr(value)
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 10, 8)
    return f"{text[:keep]}…<{len(text) - 2 * keep} more characters>…{text[-keep:]}"


class _Shown(str):
    """A string already rendered for a message."""


def _fields(value: object) -> Mapping[str, Any] | None:
    if isinstance(value, BaseModel):
        return {name: getattr(value, name) for name in type(value).model_fields}
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, Mapping):
        return value
    return None


def field_differences(want: object, got: object, prefix: str = "") -> list[str]:
    """The fields on which `got` differs from `want`, each `name: wanted X, got Y`.

    Models, dataclasses and mappings are compared field by field (nested ones too);
    anything else as a whole.
    """
    wanted, held = _fields(want), _fields(got)
    if wanted is None or held is None or type(want) is not type(got):
        if want == got:
            return []
        name = prefix or "value"
        return [f"{name}: wanted {show(want)}, got {show(got)}"]
    out: list[str] = []
    for key in [*wanted, *(k for k in held if k not in wanted)]:
        a, b = wanted.get(key, _MISSING), held.get(key, _MISSING)
        if a == b:
            continue
        path = f"{prefix}.{key}" if prefix else str(key)
        if a is _MISSING or b is _MISSING:
            out.append(f"{path}: wanted {_or_absent(a)}, got {_or_absent(b)}")
        else:
            out.extend(field_differences(a, b, path))
    return out


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


_MISSING: Any = _Missing()


def _or_absent(value: object) -> str:
    return "(absent)" if value is _MISSING else show(value)


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def name_ids(ids: Iterable[str], labels: Mapping[str, str] | None = None) -> str:
    """Ids by their labels (unlabelled ones shortened), consecutive numbered labels
    joined into ranges (`p11–p15`), at most `NAMED_IDS` named and the rest counted."""
    names = [_label(i, labels or {}) for i in ids]
    runs: list[str] = []
    i = 0
    while i < len(names):
        match = _NUMBERED.match(names[i])
        j = i
        if match:
            stem, number = match.group(1), int(match.group(2))
            while j + 1 < len(names):
                nxt = _NUMBERED.match(names[j + 1])
                if not nxt or nxt.group(1) != stem or int(nxt.group(2)) != number + (j + 1 - i):
                    break
                j += 1
        runs.append(names[i] if j == i else f"{names[i]}–{names[j]}")
        i = j + 1
    if len(runs) > NAMED_IDS:
        return ", ".join(runs[:NAMED_IDS]) + f", and {len(runs) - NAMED_IDS} more"
    return ", ".join(runs)


def _label(item_id: str, labels: Mapping[str, str]) -> str:
    label = labels.get(item_id)
    if label is not None:
        return label
    shown = repr(item_id)
    return shown if len(shown) <= 24 else shown[:20] + "…'"


def compare_ids(
    got: Sequence[str],
    want: Sequence[str],
    labels: Mapping[str, str] | None = None,
    *,
    ordered: bool = False,
) -> str | None:
    """What is wrong with `got` against `want` (each id once), or None when it matches.

    E.g. "10 of 15; missing p11–p15"; also ids not wanted, ids repeated and,
    when `ordered`, the first place the order differs.
    """
    wanted = set(want)
    counts = Counter(got)
    parts: list[str] = []
    missing = [i for i in want if i not in counts]
    strays = [i for i in dict.fromkeys(got) if i not in wanted]
    repeated = [i for i, n in counts.items() if n > 1]
    if missing or strays or repeated:
        held = len(wanted) - len(missing)
        parts.append(f"{held} of {len(wanted)}")
    if missing:
        parts.append(f"missing {name_ids(missing, labels)}")
    if strays:
        parts.append(f"{len(strays)} not asked for: {name_ids(strays, labels)}")
    if repeated:
        parts.append(
            "repeated "
            + ", ".join(f"{name_ids([i], labels)} ×{counts[i]}" for i in repeated[:NAMED_IDS])
        )
    if not parts and ordered and list(got) != list(want):
        at = next(k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b)
        parts.append(
            f"the order differs from position {at + 1}: got {name_ids(got[at : at + 5], labels)}, "
            f"wanted {name_ids(want[at : at + 5], labels)}"
        )
    return "; ".join(parts) if parts else None


def shown(text: str) -> str:
    """Mark `text` as already rendered, so `show` leaves it as it is."""
    return _Shown(text)
