"""Carla's board in a solo game (2023 pp. 15-18): where her next cube goes, which fate
tiles are face up, and the steps of her "turn" still to do after the player's.

Carla is seat 1 of a solo game's state (`CARLA`): her members, her cubes (on her board:
influence and plague cubes alike) and her served customers are in her `PlayerState`, so
every conservation invariant counts them like everyone's. This record holds only what is
hers alone. Carla never decides: her steps are forced, chance (a fate tile turned up) or
the player's decision on her behalf.
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.data.components import ActionSpace, Cube
from village_rules.data.solo_data import FateTile
from village_rules.data.typed_hash import typed_hash

PLAYER = 0
"""The seat of the one player of a solo game (always the starting player, p. 16 step 13)."""
CARLA = 1
"""Carla's seat in a solo game."""


@typed_hash
@dataclass(frozen=True, slots=True)
class CarlaBoard:
    """Carla's solo board in a solo game (2023 pp. 15-18): where her last cube went, its
    colour, and the fate tiles turned up so far (None: still face down)."""

    space: int
    """The cube space of her board that got the last cube (-1 before the first, p. 17)."""
    last_cube: Cube | None
    """The colour of that last cube: it stays on her board at a new round (p. 18)."""
    fate: tuple[FateTile | None, ...]
    """Per fate slot (`SoloData.fate_slots`): the tile turned up, None while face down."""
    look_for: Cube | None = None
    """SOLO-10: the colour of the cube the player just took; Carla's take is owed."""
    look_from: ActionSpace | None = None
    """SOLO-10: the action space the player just took it from."""
    took_from: ActionSpace | None = None
    """The action space of the cube Carla just took, while her reaction or death is to do."""
    reacted: bool = False
    """Her reaction to that cube (market, church: SOLO-16, SOLO-20) is done."""
    quill: bool = False
    """The cube passed a quill: one of her members dies once the reaction is done (SOLO-14)."""
    well_turn: bool = False
    """SOLO-25: the player's turn is a well action: Carla takes no cube and does not react,
    so she serves no customer in a market day the well started (p. 18)."""
    end_in_market_of: int | None = None
    """END-01 during a market day: the seat that triggered that market day (in solo the
    player's turn may hold Carla's market day), for END-02 / END-04 (p. 13, p. 18)."""
    action_waits: ActionSpace | None = None
    """AMB-36 b: the space of the player's action, held until Carla's steps are done."""

    @property
    def idle(self) -> bool:
        """No step of Carla's is owed."""
        return self.look_for is None and self.took_from is None and self.action_waits is None
