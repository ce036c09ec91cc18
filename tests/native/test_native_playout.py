"""The native core's own playout loop (`Game.playout`, issue 39, docs/native.md) plays the
same games as the same choices made through the binding (`NativeEngine`): its draws are
std::mt19937_64's numbers (the C++ standard fixes them, so they are computed here in Python
too), a chance event sampled as model/chance.py `sample` does (a ticket below the lcm of the
denominators) and a decision a uniform index into the legal ids. The loop works on its state
in place and draws chance events from counts, not fractions; this ties it to the stepped
game whole games long, and shows that a difference (a planted legal order) is caught.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

from math import lcm

import pytest

from village_rules.native import NativeEngine

_MASK = (1 << 64) - 1


class MersenneTwister64:
    """std::mt19937_64 ([rand.predef]: w=64, n=312, m=156, r=31 and the standard's constants)."""

    def __init__(self, seed: int) -> None:
        self.mt = [seed & _MASK]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK)
        self.index = 312

    def __call__(self) -> int:
        if self.index == 312:
            mt = self.mt
            for i in range(312):
                y = (mt[i] & ~((1 << 31) - 1) & _MASK) | (mt[(i + 1) % 312] & ((1 << 31) - 1))
                mt[i] = mt[(i + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return (y ^ (y >> 43)) & _MASK


def test_the_python_mt19937_64_is_the_standards() -> None:
    rng = MersenneTwister64(5489)  # the default seed: the standard gives the 10000th number
    for _ in range(9999):
        rng()
    assert rng() == 9981545732273789042


def stepped(engine: NativeEngine, seed: int, max_steps: int) -> tuple[int, int]:
    """`Game.playout`'s loop through the binding: (steps, seat decisions)."""
    rng = MersenneTwister64(seed)
    steps = decisions = 0
    while steps < max_steps and not engine.is_terminal:
        if engine.is_chance:
            outcomes = engine.chance_outcomes()
            denominator = lcm(*(p.denominator for _, p in outcomes))
            ticket = rng() % denominator
            choice = outcomes[-1][0]
            for i, p in outcomes:
                ticket -= p.numerator * (denominator // p.denominator)
                if ticket < 0:
                    choice = i
                    break
        else:
            ids = engine.legal_actions()
            choice = ids[rng() % len(ids)]
            decisions += 1
        engine.apply(choice)
        steps += 1
    return steps, decisions


GAMES = [("original-2011", 2, 3), ("original-2011", 4, 11), ("big-box-2023", 3, 5), ("big-box-2023", 5, 8)]


@pytest.mark.parametrize(("edition", "players", "seed"), GAMES)
def test_the_playout_loop_plays_the_games_the_binding_plays(edition: str, players: int, seed: int) -> None:
    loop, binding = NativeEngine(), NativeEngine()
    for engine in (loop, binding):
        engine.new_game_from(edition=edition, players=players, seed=seed)
    # a stretch, then the rest of the game from a second seed (the loop resumes mid-game)
    assert loop.game.playout(seed, 150) == stepped(binding, seed, 150)
    assert loop.state_json() == binding.state_json()
    done = loop.game.playout(seed + 1, 10**9)
    assert done == stepped(binding, seed + 1, 10**9)
    assert loop.is_terminal
    assert loop.state_json() == binding.state_json()
    assert loop.scores() == binding.scores()


def test_a_planted_difference_is_caught() -> None:
    loop, binding = NativeEngine(), NativeEngine()
    for engine in (loop, binding):
        engine.new_game_from(edition="big-box-2023", players=4, seed=2)
    binding.plant_swapped_legal_order()  # the binding's legal ids, first two swapped
    loop.game.playout(2, 10**9)
    stepped(binding, 2, 10**9)
    assert loop.state_json() != binding.state_json()
