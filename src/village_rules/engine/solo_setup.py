"""The solo setup against Carla (2023 p. 16): the changes to the 2-player setup.

The game is set up for two seats, the player's (0) and Carla's (1), with the setup card,
market and chronicle of a 2-player game (SOLO-02). Carla's seat gets her 11 members, the
"1"s and "2"s next to her board and the "3"s and "4"s onto the church (SOLO-04), no coin
(SOLO-05), and her board with the fate tiles face down (SOLO-06).
"""

from __future__ import annotations

from village_rules.data.components import CHURCH_RESERVE, FARMYARD
from village_rules.data.tally import Tally
from village_rules.engine.guards import present
from village_rules.model.carla_board import CarlaBoard
from village_rules.model.state import PLAYER_COLOURS, PlayerState
from village_rules.rules.variant import Rules


def carla_player(rules: Rules) -> PlayerState:
    """SOLO-04 / SOLO-05: Carla's seat at setup. Her one disc marker lies next to the
    frontmost customer as a reminder only, so it is not a piece of the state; her life-time
    and point tokens go back to the box (her `lifetime` and `prestige` stay 0)."""
    d = rules.data
    solo = present(d.solo, "solo_setup.carla_player", "the edition's solo data")
    members = tuple(FARMYARD if n in solo.beside_board else CHURCH_RESERVE for n in d.family_numbers)
    return PlayerState(
        colour=PLAYER_COLOURS[1],
        members=members,
        grain=0,
        coins=0,
        cubes=Tally(),
        goods=Tally(),
        lifetime=0,
        prestige=0,
        customers=(),
        markers=(),
    )


def carla_board(rules: Rules) -> CarlaBoard:
    """SOLO-06: her board, no cube on it yet, the fate tiles face down."""
    solo = present(rules.data.solo, "solo_setup.carla_board", "the edition's solo data")
    return CarlaBoard(space=-1, last_cube=None, fate=tuple(None for _ in solo.fate_slots))
