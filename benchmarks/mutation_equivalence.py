"""Two kinds of mutant no conformant reading can tell apart, recognised from the code.

The table in `docs/mutation.md` names equivalent mutants one by one. Two kinds are too
many to list and are judged here, from the mutant's code against the original's
(mutmut keeps both in its `mutants/` tree, as `x_f__mutmut_orig` and `x_f__mutmut_N`):

- **Refusal words** (provider subjects only): the mutant changes only the text of a
  message, in a `raise` or in the arguments of a provider error (`Invalid`, `Backend`)
  or of the `sqlite` label `_utf8(value, "label")`, to other text. The provider contract
  pins the kind of a refusal, never its words (`docs/contract/errors.md`). A message
  replaced by `None` is no message, not other words: not judged (the fuzzer kills some).
  Engine messages are pinned in places, so engine mutants are never judged this way.
- **SQL in another case** (`sqlite` only): the mutant changes only the letter case of
  a string holding SQL (a keyword in it), outside its quoted literals (`WHERE` for
  `where`, `D.TITLE` for `d.title`): SQLite's keywords and identifiers ignore case; a
  literal (`'conversation'`) does not, so a mutant changing one is not judged
  equivalent. A bare column name (`"title"`, joined into SQL elsewhere) is not judged
  here: the same string might be compared in Python.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = ["automatic_reason"]

_MESSAGE_CALLS = frozenset(
    {"Invalid", "Backend", "Unsupported", "StoreUnavailable", "SchemaTooNew", "_utf8"}
)
_SQL = re.compile(
    r"\b(select|insert|update|delete|where|values|order by|group by|limit|from|join|"
    r"excluded|and|or|count|max)\b|=\s*\?",
    re.IGNORECASE,
)
_LITERAL = re.compile(r"'(?:[^']|'')*'")

REFUSAL_WORDS = (
    "refusal words: the mutant changes only the text of an error message; the provider "
    "contract pins a refusal's kind, not its words"
)
SQL_CASE = (
    "SQL in another case: the mutant changes only the letter case of SQL keywords or "
    "identifiers, which SQLite ignores"
)


@functools.cache
def _functions(path: Path) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text())
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = node
    return found


def _differences(
    a: object, b: object, parents: tuple[ast.AST, ...]
) -> Iterator[tuple[object, object, tuple[ast.AST, ...]]]:
    """Each place where the trees `a` and `b` differ, with the nodes above it."""
    if type(a) is not type(b):
        yield a, b, parents
    elif isinstance(a, ast.AST):
        assert isinstance(b, ast.AST)
        for field in a._fields:
            yield from _differences(getattr(a, field), getattr(b, field), (*parents, a))
    elif isinstance(a, list):
        assert isinstance(b, list)
        if len(a) != len(b):
            yield a, b, parents
        else:
            for x, y in zip(a, b, strict=True):
                yield from _differences(x, y, parents)
    elif a != b:
        yield a, b, parents


def _is_message(parents: tuple[ast.AST, ...]) -> bool:
    return any(
        isinstance(node, ast.Raise)
        or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _MESSAGE_CALLS
        )
        for node in parents
    )


def _text_change(
    old: object, new: object, parents: tuple[ast.AST, ...]
) -> tuple[str, str | None] | None:
    """`(old text, new text or None)` when the difference is a string constant changed
    (or replaced by `None`), else `None`."""
    holder = parents[-1] if parents else None
    if isinstance(holder, ast.Constant) and isinstance(old, str):
        return old, new if isinstance(new, str) else None
    if isinstance(old, ast.Constant) and isinstance(old.value, str):
        return old.value, None
    if isinstance(old, ast.JoinedStr) and isinstance(new, (ast.Constant, ast.JoinedStr)):
        return ast.unparse(old), None
    return None


def _sql_case_only(old: str, new: str | None) -> bool:
    """Whether `old`, a piece of SQL (it holds a keyword), became `new` by case alone."""
    if new is None or old == new or old.lower() != new.lower():
        return False
    return _LITERAL.findall(old) == _LITERAL.findall(new) and bool(_SQL.search(old))


def automatic_reason(mutants: Path, name: str) -> str | None:
    """Why mutant `name` (`subject_driver.sqlite.store.x_f__mutmut_3`) is equivalent by one
    of the two rules, reading its code under `mutants` (mutmut's `mutants/subject_driver`
    folder), or `None`."""
    match = re.fullmatch(r"[^.]+\.(.+)\.(x[^.]+?)__mutmut_(\d+)", name)
    if match is None:
        return None
    module, function, number = match.groups()
    path = mutants.joinpath(*module.split(".")).with_suffix(".py")
    if not path.exists():
        return None
    functions = _functions(path)
    original = functions.get(f"{function}__mutmut_orig")
    mutant = functions.get(f"{function}__mutmut_{number}")
    if original is None or mutant is None:
        return None
    changes = list(_differences(original.body, mutant.body, ()))
    texts = [(_text_change(a, b, parents), parents) for a, b, parents in changes]
    if not changes or any(text is None for text, _ in texts):
        return None
    provider_side = not module.startswith(("engine", "scoring"))
    # A message replaced by `None` is not other words but none: not judged here.
    worded = all(text is not None and text[1] is not None for text, _ in texts)
    if provider_side and worded and all(_is_message(parents) for _, parents in texts):
        return REFUSAL_WORDS
    if module.startswith("sqlite.") and all(
        text is not None and _sql_case_only(*text) for text, _ in texts
    ):
        return SQL_CASE
    return None
