"""A known scenario for the picture tests: cubes on two action spaces, members on the
council chamber, the church and the travel map, a marker on a city."""

from __future__ import annotations

from dataclasses import replace

from village_rules.data.components import ActionSpace, Cube, OnChurch, OnCouncil, Travelling
from village_rules.drivers import scenario
from village_rules.model.state import GameState


def known_state() -> GameState:
    """Big Box, 3 players: 2 brown + 1 plague on crafts, 3 green on the church space, seat
    0's member 1 on council stage 2, seat 1's member 1 on church stage 3, seat 2's member 1
    travelling in Ashford (c1) with a marker there."""
    s = scenario.emptied("big-box-2023", 3, seed=5)
    s = scenario.put_cubes(s, ActionSpace.CRAFTS, {Cube.BROWN: 2, Cube.PLAGUE: 1})
    s = scenario.put_cubes(s, ActionSpace.CHURCH, {Cube.GREEN: 3})
    s = scenario.place(s, 0, 1, OnCouncil(2))
    s = scenario.place(s, 1, 1, OnChurch(3))
    s = scenario.place(s, 2, 1, Travelling("c1"))
    p = s.players[2]
    return s.with_player(2, replace(p, markers=("c1",)))
