"""The typed walk over a data file's parsed JSON: every value read with its key path, so that
a problem raises `DataError(file, key, problem)` naming both; provenance collected on the way.
The edition loader and the solo section's parser (`solo_data`) share it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from village_rules.data.provenance import Provenance
from village_rules.data.tally import Tally
from village_rules.errors import DataError

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
"""A JSON value as the json module produces it."""
E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")


@dataclass
class Reader:
    """Walks the raw JSON, keeping the key path for errors and collecting provenance."""

    file: str
    provenance: list[tuple[str, Provenance]] = field(default_factory=list)

    def fail(self, key: str, problem: str) -> DataError:
        """The `DataError` for a problem at `key` of this file."""
        return DataError(self.file, key, problem)

    # --- structure ----------------------------------------------------------------------

    def obj(self, raw: Json, key: str) -> dict[str, Json]:
        """`raw` as a JSON object."""
        if not isinstance(raw, dict):
            raise self.fail(key, f"expected an object, got {json_kind(raw)}")
        return raw

    def member(self, raw: dict[str, Json], name: str, key: str) -> Json:
        """The value of key `name` in the object at `key`."""
        if name not in raw:
            raise self.fail(join_key(key, name), "missing key")
        return raw[name]

    def exact_keys(
        self,
        raw: dict[str, Json],
        key: str,
        required: set[str],
        optional: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        """Refuse a missing required key or an unknown one."""
        missing = sorted(required - raw.keys())
        if missing:
            raise self.fail(join_key(key, missing[0]), "missing key")
        extra = sorted(raw.keys() - required - optional)
        if extra:
            raise self.fail(join_key(key, extra[0]), "unknown key")

    def sourced(self, raw: Json, key: str) -> Json:
        """Unwrap `{"value": …, "provenance": "kind: where"}` and record the provenance."""
        node = self.obj(raw, key)
        if set(node) != {"value", "provenance"}:
            raise self.fail(key, "expected a sourced node with exactly the keys 'value' and 'provenance'")
        prov = node["provenance"]
        if not isinstance(prov, str):
            raise self.fail(join_key(key, "provenance"), f"expected a string, got {json_kind(prov)}")
        try:
            self.provenance.append((key, Provenance.parse(prov)))
        except ValueError as exc:
            raise self.fail(join_key(key, "provenance"), str(exc)) from None
        return node["value"]

    # --- values -------------------------------------------------------------------------

    def int_(self, raw: Json, key: str, lo: int = 0, hi: int = 10_000) -> int:
        """`raw` as an integer within lo..hi (a boolean is not an integer)."""
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise self.fail(key, f"expected an integer, got {json_kind(raw)}")
        if not lo <= raw <= hi:
            raise self.fail(key, f"{raw} is out of range {lo}..{hi}")
        return raw

    def str_(self, raw: Json, key: str) -> str:
        """`raw` as a string (not one of blanks only)."""
        if not isinstance(raw, str) or (not raw.strip() and raw != ""):
            raise self.fail(key, f"expected a string, got {json_kind(raw)}")
        return raw

    def enum(self, cls: type[E], raw: Json, key: str) -> E:
        """`raw` as a member of the string enum `cls`."""
        if not isinstance(raw, str):
            raise self.fail(key, f"expected a string, got {json_kind(raw)}")
        try:
            return cls(raw)
        except ValueError:
            allowed = ", ".join(m.value for m in cls)
            raise self.fail(key, f"unknown name {raw!r} (allowed: {allowed})") from None

    def list_(self, raw: Json, key: str, item: Callable[[Json, str], T], min_len: int = 0) -> tuple[T, ...]:
        """`raw` as a list, each entry read by `item`."""
        if not isinstance(raw, list):
            raise self.fail(key, f"expected a list, got {json_kind(raw)}")
        if len(raw) < min_len:
            raise self.fail(key, f"expected at least {min_len} entries, got {len(raw)}")
        return tuple(item(x, f"{key}[{i}]") for i, x in enumerate(raw))

    def counts(self, cls: type[E], raw: Json, key: str, hi: int = 100) -> Tally[E]:
        """`raw` as counts of an enum's members (an object of name: count)."""
        node = self.obj(raw, key)
        return Tally.of(
            {
                self.enum(cls, k, join_key(key, k)): self.int_(v, join_key(key, k), 0, hi)
                for k, v in node.items()
            }
        )

    def sourced_int(self, raw: dict[str, Json], name: str, key: str, lo: int = 0, hi: int = 10_000) -> int:
        """The sourced integer at key `name` of the object at `key`."""
        k = join_key(key, name)
        return self.int_(self.sourced(self.member(raw, name, key), k), k, lo, hi)


    def ints(
        self, raw: Json, key: str, length: int | None = None, lo: int = 0, hi: int = 100
    ) -> tuple[int, ...]:
        """`raw` as a list of integers within lo..hi, of `length` entries if given."""
        values = self.list_(raw, key, lambda x, k: self.int_(x, k, lo, hi))
        if length is not None and len(values) != length:
            raise self.fail(key, f"expected {length} entries, got {len(values)}")
        return values



def join_key(key: str, name: str) -> str:
    """The key path of `name` inside `key`."""
    return f"{key}.{name}" if key else name


def json_kind(raw: Json) -> str:
    """What kind of JSON value `raw` is, in words, for error messages."""
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}[
        type(raw)
    ]

