"""The native loop's shards (explore/native_shards.py, cpp/explore.cpp `Shard`) tied to the
threaded loop: in this process on tiny and solo (default suite), and as Ray actors on a
local Ray instance (the distributed extra; CI's extras lane). The counts, the checks and
the shortest games' lengths are the threaded loop's for as many threads; each shortest game
replays on the reference to its end. A coordinator that loses a shard's outbox is caught by
the tie and named; an outbox that is not one is refused."""

from __future__ import annotations

import pytest

from village_rules.engine.end_of_game import ended_by
from village_rules.explore.configs import configuration
from village_rules.explore.search import replay, roots

native = pytest.importorskip("village_rules.explore.native")
shards_module = pytest.importorskip("village_rules.explore.native_shards")


def _tie(name: str, shards: int, *, ray: bool = False) -> None:
    threads = native.explore_counts(name, workers=shards, check=True)
    sharded = shards_module.explore_sharded(name, shards=shards, check=True, ray=ray)
    assert native.differences(sharded, threads.figures()) == []
    assert (sharded.roots, sharded.states_checked, sharded.edges_checked, sharded.violation_count) == (
        threads.roots,
        threads.states_checked,
        threads.edges_checked,
        0,
    )
    assert sharded.states_checked == sharded.states
    assert (sharded.engine_exceptions, sharded.frontier_bytes) == (0, threads.frontier_bytes)
    assert {k: len(ids) for k, (_, ids) in sharded.shortest_end.items()} == {
        k: len(ids) for k, (_, ids) in threads.shortest_end.items()
    }
    data = configuration(name).data
    starts = roots(data, sharded.players)
    for ended, (root, actions) in native.shortest_end_actions(data, sharded).items():
        final = replay(starts[root].state, actions)
        assert final.is_terminal and ended_by(final) == ended


@pytest.mark.parametrize(("name", "shards"), [("tiny", 1), ("tiny", 2), ("tiny", 3), ("solo", 2)])
def test_shards_in_process_count_as_the_threads_do(name: str, shards: int) -> None:
    _tie(name, shards)


def test_a_lost_outbox_is_caught_by_the_tie_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    real = shards_module.LocalShards.level

    def loses_shard_1s_outbox(self: object) -> list[tuple[int, int]]:
        boxes = [s.expand() for s in self._shards]  # type: ignore[attr-defined]
        for o, shard in enumerate(self._shards):  # type: ignore[attr-defined]
            shard.keep([b"" if w == 1 else box[o] for w, box in enumerate(boxes)])
        return [(int(n), int(b)) for n, b in (s.advance() for s in self._shards)]  # type: ignore[attr-defined]

    monkeypatch.setattr(shards_module.LocalShards, "level", loses_shard_1s_outbox)
    planted = shards_module.explore_sharded("tiny", shards=2)
    monkeypatch.setattr(shards_module.LocalShards, "level", real)
    found = native.differences(planted, native.explore_counts("tiny", workers=2).figures())
    assert found and found[0].startswith("states: native ")


def test_an_outbox_that_is_not_one_is_refused() -> None:
    spec = shards_module.Spec(2, None, 2, False)
    data = configuration("tiny").data
    shards = [spec.shard(data, o) for o in range(2)]
    assert sum(s.seed() for s in shards) == len(roots(data, 2))
    boxes = [s.expand() for s in shards]
    owner, box = next((o, b[o]) for b in boxes for o in range(2) if b[o])
    with pytest.raises(ValueError, match="ends inside a record"):
        shards[owner].keep([b"\x01\x02", b""])
    with pytest.raises(ValueError, match="one outbox per shard"):
        shards[owner].keep([box])
    cut = box[: len(box) - 1]  # the last record's state one byte short
    with pytest.raises(ValueError, match="ends inside a state"):
        shards[owner].keep([cut, b""] if owner == 0 else [b"", cut])
    flipped = bytearray(box)
    flipped[-1] ^= 0x01  # a byte of the last state changed: not its fingerprint's bytes any more
    with pytest.raises(ValueError, match="not its fingerprint's"):
        shards[owner].keep([bytes(flipped), b""] if owner == 0 else [b"", bytes(flipped)])
    with pytest.raises(ValueError, match="does not own"):
        shards[1 - owner].keep([box, b""])
    with pytest.raises(ValueError, match="shards must be 1 to 64"):
        spec.shard(data, 2)


@pytest.mark.parametrize("shards", [1, 2])
def test_shards_on_a_local_ray_instance_count_as_the_threads_do(local_ray: None, shards: int) -> None:
    _tie("tiny", shards, ray=True)
