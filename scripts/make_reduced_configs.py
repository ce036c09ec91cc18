"""Write the reduced configurations of `village_rules.explore` (src/village_rules/explore/configs/).

Each is a shipped edition's data file with fewer pieces: fewer cubes per round (spaces may
stay empty), one or two colours in the green bag, a short life-time track, one chronicle
space and one grave, few customers, one city, no starting coin and a well that needs 3
cubes. Every changed value says so in its provenance; every rule of the edition still
applies. Run it after changing a shipped data file or a configuration below:

    python scripts/make_reduced_configs.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "village_rules" / "data"
OUT = ROOT / "src" / "village_rules" / "explore" / "configs"
WHY = "reconstructed: reduced configuration for exhaustive exploration (docs/exploration.md), not a real game"
SPACES = ("grain_harvest", "family", "crafts", "market", "travel", "council_chamber", "church")


def _sourced(value: Any) -> dict[str, Any]:
    return {"value": value, "provenance": WHY}


def reduced(
    base: str,
    *,
    name: str,
    what: str,
    players: tuple[int, int],
    family: list[int],
    lifetime: int,
    spaces: dict[str, int],
    colours: dict[str, int],
    influence: int,
    plague: int = 2,
    customers: int = 2,
) -> dict[str, Any]:
    """The data of edition `base` reduced as the arguments say (module docstring)."""
    d = copy.deepcopy(json.loads((DATA / f"{base}.json").read_text(encoding="utf-8")))
    d["name"] = name
    d["reduced"] = what
    d["players"] = _sourced({"min": players[0], "max": players[1]})
    d["family_numbers"] = _sourced(family)
    d["starting_coins"] = _sourced(0)
    d["supply"] = {
        "coins": _sourced(4),
        "grain": _sourced(4),
        "goods_each": _sourced(2),
        "influence_cubes_each": _sourced(influence),
        "plague_cubes": _sourced(plague),
        "monks": _sourced(d["supply"]["monks"]["value"]),
    }
    d["lifetime_track_length"] = _sourced(lifetime)
    d["well_cubes"] = _sourced(3)
    card = {
        "cubes_added": {c: colours.get(c, 0) for c in ("brown", "pink", "orange", "green")},
        "cubes_per_space": {s: spaces.get(s, 0) for s in SPACES},
    }
    d["setup_cards"] = {str(n): _sourced(card) for n in range(2, players[1] + 1)}
    d["customers"] = d["customers"][:customers]
    for category in d["chronicle"]["spaces"]:
        d["chronicle"]["spaces"][category] = _sourced([2] if category == "farmyard" else [])
    d["graveyard"] = _sourced([2])
    d["market"]["spaces"] = [_sourced({"row": "available", "position": 1, "min_players": 2, "label": ""})]
    travel = d["travel"]
    travel["cities"] = travel["cities"][:1]
    keep = {travel["village"], travel["cities"][0]["value"]["id"]}
    travel["paths"] = [p for p in travel["paths"] if {p["value"]["from"], p["value"]["to"]} <= keep]
    if d["starting_compensation"]["value"]:
        d["starting_compensation"] = _sourced(d["starting_compensation"]["value"][: players[1]])
    if "solo" in d:
        numbers = sorted(set(family))
        d["solo"]["beside_board"] = _sourced(numbers[:1])
        d["solo"]["on_church"] = _sourced(numbers[1:])
    return d


CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": dict(
        base="original-2011",
        what="2 players, 2 cubes a round (grain harvest, market) from 1 brown, 1 green and 2 plague, "
        "2 members each, a life-time track of 2, 1 chronicle space, 1 grave, 2 customers, 1 city",
        players=(2, 2),
        family=[1, 1],
        lifetime=2,
        spaces={"grain_harvest": 1, "market": 1},
        colours={"brown": 1, "green": 1},
        influence=2,
    ),
    "solo": dict(
        base="big-box-2023",
        what="the solo game against Carla: 2 cubes a round (grain harvest, market) from 1 brown, 1 green "
        "and 2 plague, 2 members, a life-time track of 2, 1 chronicle space, 1 grave, 2 customers, 1 city",
        players=(2, 2),
        family=[1, 1],
        lifetime=2,
        spaces={"grain_harvest": 1, "market": 1},
        colours={"brown": 1, "green": 1},
        influence=2,
    ),
    "small": dict(
        base="original-2011",
        what="2 players, 4 cubes a round (grain harvest, market, council chamber, church) from 1 brown, "
        "1 pink, 1 green and 2 plague, 2 members each, a life-time track of 2, 1 chronicle space, 1 grave, "
        "2 customers, 1 city",
        players=(2, 2),
        family=[1, 1],
        lifetime=2,
        spaces={"grain_harvest": 1, "market": 1, "council_chamber": 1, "church": 1},
        colours={"brown": 1, "pink": 1, "green": 1},
        influence=3,
    ),
    "births": dict(
        base="original-2011",
        what="2 players, 2 cubes a round (grain harvest, family) from 1 brown, 1 green and 2 plague, "
        "2 members each and a third (a \"2\") to be born, a life-time track of 2, 1 chronicle space, "
        "1 grave, 2 customers, 1 city",
        players=(2, 2),
        family=[1, 1, 2],
        lifetime=2,
        spaces={"grain_harvest": 1, "family": 1},
        colours={"brown": 1, "green": 1},
        influence=2,
    ),
    "large": dict(
        base="original-2011",
        what="2 players, 4 cubes a round (grain harvest, market, council chamber, church) from 1 brown, "
        "1 pink, 1 green and 1 plague, 2 influence cubes each, 2 members each, a life-time track of 3, "
        "1 chronicle space, 1 grave, 1 customer, 1 city",
        players=(2, 2),
        family=[1, 1],
        lifetime=3,
        spaces={"grain_harvest": 1, "market": 1, "council_chamber": 1, "church": 1},
        colours={"brown": 1, "pink": 1, "green": 1},
        influence=2,
        plague=1,
        customers=1,
    ),
}

# Nearer the real game (issue 40, item 5): `large` with a longer life-time track and more
# customers, explored by the native explorer alone.
_NEARER = "2 players, 4 cubes a round (grain harvest, market, council chamber, church) from 1 brown, 1 pink, "
for _name, _track, _customers, _size in (("longer", 4, 2, "10^7"), ("longest", 5, 3, "10^8")):
    CONFIGS[_name] = {
        **CONFIGS["large"],
        "what": f"large with a life-time track of {_track} and {_customers} customers (issue 40: >= {_size} "
        f"states, explored natively): {_NEARER}1 green and 1 plague, 2 influence cubes each, 2 members each, "
        f"a life-time track of {_track}, 1 chronicle space, 1 grave, {_customers} customers, 1 city",
        "lifetime": _track,
        "customers": _customers,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, args in CONFIGS.items():
        data = reduced(name=f"reduced: {name}", **args)
        (OUT / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT / f'{name}.json'}")


if __name__ == "__main__":
    main()
