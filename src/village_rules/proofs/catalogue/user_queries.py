"""Stage: catalogue (a user's own queries).

A user's own queries, loaded from a Python file (`prove`, `replay` and `view --queries FILE`).

The file is an ordinary module that defines `Query` objects at its top level (docs/proofs.md,
"Adding a query"); every module-level name bound to a `Query` is one of its queries, in the
order they are defined. A witness of such a query records the query's name and the file it
came from (`GameLog.query`), so `replay` and `view` can say which query it shows when given
the same file, and refuse clearly without it.

Each way a file can be unusable is its own `QueryFileError` (exit 2, no traceback): it does
not exist, is not a Python file, does not compile, raises when imported, defines no query,
defines two queries with one name or number, or one whose name or number is the catalogue's.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from village_rules.data.loader import EDITIONS
from village_rules.engine.guards import present
from village_rules.errors import VillageError
from village_rules.proofs.catalogue.catalogue import CATALOGUE, by_name
from village_rules.proofs.catalogue.query import CATALOGUE_SOURCE, Query


class QueryFileError(VillageError):
    """A `--queries` file that cannot give queries, or a witness whose query is not known."""


@dataclass(frozen=True)
class UserQueries:
    """The queries of one file, and the file as it was given (what witnesses record)."""

    source: str
    queries: tuple[Query, ...]

    def named(self, name: str) -> Query | None:
        """The query of this file with that name or number, if any."""
        return next((q for q in self.queries if name in (q.name, q.number)), None)


def load_queries(path: Path) -> UserQueries:
    """Import the module at `path` and collect its module-level `Query` objects."""
    if not path.exists():
        raise QueryFileError(f"--queries {path}: no such file")
    if not path.is_file():
        raise QueryFileError(f"--queries {path}: not a file (give the path of a .py module)")
    if path.suffix != ".py":
        raise QueryFileError(f"--queries {path}: not a Python file (give a module ending in .py)")
    try:
        text = path.read_text(encoding="utf-8")
        code = compile(text, str(path), "exec")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryFileError(f"--queries {path}: cannot be read: {exc}") from None
    except SyntaxError as exc:
        raise QueryFileError(
            f"--queries {path}: not valid Python: {exc.msg} (line {exc.lineno})"
        ) from None
    name = "village_rules_user_queries_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_loader(name, loader=None, origin=str(path))
    what = "a module spec (spec_from_loader gives one for any name)"
    spec = present(spec, "proofs.catalogue.user_queries", what)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # the user's code: any failure is a refusal, not a crash
        if isinstance(exc, KeyboardInterrupt):
            raise
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
        where = f" (line {frames[-1].lineno})" if frames else ""
        del sys.modules[name]
        raise QueryFileError(
            f"--queries {path}: raised {type(exc).__name__} when imported{where}: {exc}"
        ) from None
    found: list[Query] = []
    for value in vars(module).values():
        if isinstance(value, Query) and all(value is not q for q in found):
            found.append(value)
    if not found:
        raise QueryFileError(
            f"--queries {path}: defines no queries (bind each `Query(...)` to a name at the "
            "module's top level, as docs/proofs.md shows)"
        )
    for i, q in enumerate(found):
        for other in CATALOGUE:
            if q.name == other.name or q.number == other.number:
                raise QueryFileError(
                    f"--queries {path}: query {q.number} ({q.name}) clashes with the catalogue's "
                    f"query {other.number} ({other.name}): give it another name and number"
                )
        for other in found[:i]:
            if q.name == other.name or q.number == other.number:
                raise QueryFileError(
                    f"--queries {path}: two queries share a name or number: {other.number} "
                    f"({other.name}) and {q.number} ({q.name})"
                )
    return UserQueries(str(path), tuple(replace(q, source=str(path)) for q in found))


def query_of_log(recorded: tuple[str, str], user: UserQueries | None, where: Path) -> Query:
    """The query a witness records (`GameLog.query`): the catalogue's, or one of the user's
    file; `QueryFileError` naming the witness and what to give otherwise."""
    name, source = recorded
    if source == CATALOGUE_SOURCE:
        try:
            return by_name(name)
        except VillageError:
            raise QueryFileError(
                f"{where}: a witness of catalogue query {name!r}, which the catalogue no longer has"
            ) from None
    if user is None:
        raise QueryFileError(
            f"{where}: a witness of query {name!r} defined in {source}: give `--queries {source}` "
            "to replay or view it as one"
        )
    query = user.named(name)
    if query is None:
        known = ", ".join(q.name for q in user.queries)
        raise QueryFileError(
            f"{where}: a witness of query {name!r} (from {source}), which {user.source} does not "
            f"define (it defines: {known})"
        )
    return query


def shown_query(path: Path, recorded: tuple[str, str] | None, user: UserQueries | None) -> Query | None:
    """The query a proof witness file shows: the one its log records (`recorded`, see
    `query_of_log`), else the one its file name names (`{number}-{name}-{edition}-{n}p.json`,
    the catalogue's or `user`'s); None for a file that is no proof witness."""
    if recorded is not None:
        return query_of_log(recorded, user, path)
    for q in [*CATALOGUE, *(user.queries if user is not None else ())]:
        for edition in EDITIONS:
            rest = path.name.removeprefix(f"{q.number}-{q.name}-{edition}-")
            if rest != path.name and rest.endswith("p.json") and rest[: -len("p.json")].isdigit():
                return q
    return None
