"""Two queries of your own, for `village-rules prove --queries examples/my_queries.py`.

A query is a `Query` bound to a name at the top level of the module (docs/proofs.md,
"Your own queries"): a name and a number that are not the catalogue's, a title, an abstract
predicate for z3 (over the abstract state's variables), a concrete predicate over the real
game path (`History`) and, if you like, a `Steer` that tells the witness search what to prefer.
"""

from village_rules.actions import Action, Harvest
from village_rules.model.state import GameState
from village_rules.proofs import History, Query, Steer, any_seat


def full_barn_harvest(h: History) -> bool:
    """The last action is a harvest by a player whose farmyard was already full."""
    before, action = h.states[-2], h.actions[-1]
    seat = before.current_player()
    return isinstance(action, Harvest) and before.players[seat].grain == before.rules.data.grain_capacity


def prefer_harvest(state: GameState, action: Action) -> float:
    """The witness search's steer: prefer harvesting."""
    return 5.0 if isinstance(action, Harvest) else 0.0


FULL_BARN = Query(
    "full-barn-harvest",
    "X1",
    "a player with a full farmyard harvests",
    lambda v, k: any_seat(k, lambda s: v[f"grain_{s}"] == k.grain_capacity),
    full_barn_harvest,
    Steer(prefer_harvest, randomness=0.2),
    players={"big-box-2023": (2,)},
    search_games=20,
)
