"""AMB-03 (the general supply runs out): whether the supply can make an action's payout.

Reading a (the default, TURN-04 not in force): the player gets what is left. Reading b
(TURN-04): an action whose payout the supply cannot make in full is not a legal action;
the player may still take the cube without doing the action (2023 p. 5 step 2 "You may
perform the action"). This module is the one full-payout predicate for every action that
pays out of the supply; both legal-move paths of `engine/core.py` (the generator and the
oracle `_illegal`) call `payout_shortfall`, so they cannot disagree about it.

The payout is judged when the action is chosen, against the supply as it stands before
the action's costs are paid (the register entry says why).
"""

from __future__ import annotations

from village_rules.data.components import INFLUENCE
from village_rules.data.edition import RewardKind
from village_rules.engine import harvest, travel
from village_rules.model.actions import Action, Buy, Harvest, Mill, Privilege, Produce, Train, Travel
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId

RULE = RuleId.TURN_04
"""The rule that refuses an action under AMB-03 b (specs/rules.md)."""


def full_payout_required(state: GameState) -> bool:
    """AMB-03 b is in force."""
    return state.rules.reading("AMB-03") == "b"


def payout_shortfall(state: GameState, seat: int, action: Action) -> str | None:
    """Why the supply cannot pay `action` out in full under AMB-03 b, else None (always
    None under reading a). Covers every payout from the supply: the grain harvest, a good
    from a craft (train and produce, produce, buy), the mill's coins, a city reward (coins
    or cubes of choice) and the council privileges 2 (cubes) and 3 (a good)."""
    if not full_payout_required(state):
        return None
    supply = state.supply
    d = state.rules.data
    match action:
        case Harvest():
            room = max(0, d.grain_capacity - state.players[seat].grain)
            due = min(harvest.harvest_yield(state, seat), room)  # AMB-02 a caps the payout
            if supply.grain < due:
                return _short("grain harvest", f"{due} grain", f"{supply.grain}")
        case Train(_, _, good) | Produce(_, good) | Buy(_, good) if good is not None:
            if supply.goods[good] == 0:
                return _short("crafts", f"a {good.value}", "none")
        case Mill():
            if supply.coins < d.mill_coins:
                return _short("the mill", f"{d.mill_coins} coins", f"{supply.coins}")
        case Travel(_, destination, _):
            reward = travel.reward_due(state, seat, destination)
            if reward is not None:
                if reward.reward is RewardKind.COINS and supply.coins < reward.amount:
                    return _short(f"travel to {destination}", f"{reward.amount} coin", f"{supply.coins}")
                cubes = sum(supply.cubes[c] for c in INFLUENCE)
                if reward.reward is RewardKind.CUBES_OF_CHOICE and cubes < reward.amount:
                    return _short(f"travel to {destination}", f"{reward.amount} influence cubes", f"{cubes}")
        case Privilege(2):
            cubes = sum(supply.cubes[c] for c in INFLUENCE)
            if cubes < d.privilege_cubes:
                return _short("privilege 2", f"{d.privilege_cubes} influence cubes", f"{cubes}")
        case Privilege(3):
            goods = supply.goods.total()
            if goods < d.privilege_goods:
                return _short("privilege 3", f"{d.privilege_goods} goods tile", f"{goods}")
    return None


def _short(what: str, due: str, left: str) -> str:
    return f"{what} (AMB-03 b): the supply cannot pay out {due} (it holds {left})"
