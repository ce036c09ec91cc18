"""What an exploration's verdicts are about: the configuration, and how it differs from its
edition (issue 40, item 6).

"Unreachable by exhaustion" is a fact about the configuration that was explored, not about
the whole game, so `explore` says in one line which configuration and what it leaves out of
its edition (`scope_line`, from the data itself: the edition's own data file is compared
with the configuration's). A query whose rule the configuration never fires on any edge is
*vacuous* there (`vacuous`): that no edge meets it says nothing about the rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from village_rules.data.edition import EditionData
from village_rules.data.loader import builtin_edition


def _fewer(what: str, has: int, edition: int) -> list[str]:
    return [f"{what} {has} of {edition}"] if has < edition else []


def left_out(data: EditionData, players: int) -> list[str]:
    """What `data` (a configuration of an edition) has less of than the edition's own data at
    `players` players, each as "what it has of the edition's"; empty for the whole edition."""
    edition = builtin_edition(data.edition)
    # the seats whose card and spaces count (a solo game sets up two: the player's, Carla's)
    seats = data.seats(players)
    at = edition.seats(players) if players in edition.playable_counts else min(edition.player_counts)
    mine, theirs = data.setup_card(seats), edition.setup_card(at)
    seeded = [s.value.replace("_", " ") for s, n in mine.cubes_per_space if n > 0]
    all_spaces = [s for s, n in theirs.cubes_per_space if n > 0]
    out = _fewer("action spaces seeded", len(seeded), len(all_spaces))
    if out:
        out = [f"{out[0]} ({', '.join(seeded)})"]
    out += _fewer("cubes a round", mine.cubes_per_round, theirs.cubes_per_round)
    out += _fewer("members a player", len(data.family_numbers), len(edition.family_numbers))
    out += _fewer("life-time track spaces", data.lifetime_track_length, edition.lifetime_track_length)
    out += _fewer("chronicle spaces", data.chronicle_open_total(seats), edition.chronicle_open_total(at))
    out += _fewer("graves", data.graveyard_open(seats), edition.graveyard_open(at))
    out += _fewer("customers", len(data.customers), len(edition.customers))
    out += _fewer("cities", len(data.cities), len(edition.cities))
    out += _fewer("crafts buildings", len(data.crafts), len(edition.crafts))
    out += _fewer("plague cubes", data.plague_cubes, edition.plague_cubes)
    out += _fewer("coins in the supply", data.supply_coins, edition.supply_coins)
    out += _fewer("grain in the supply", data.supply_grain, edition.supply_grain)
    return out


def scope_line(name: str, data: EditionData, players: int) -> str:
    """One line: the verdicts below are about configuration `name`, and how it differs from
    its edition (`left_out`)."""
    gaps = left_out(data, players)
    if not gaps:
        return f"scope       verdicts about {name}: the whole {data.edition} game at {players} player(s)"
    return (
        f"scope       verdicts about {name} only, not the whole {data.edition} game; it has "
        f"{'; '.join(gaps)}"
    )


def vacuous(needs: Iterable[str], fired: frozenset[str]) -> list[str]:
    """The rule IDs of `needs` (a query's rules, every one of which its situation fires) that
    no explored edge fired: non-empty means the query cannot hold in this configuration
    for a reason that says nothing about the rule it asks about."""
    return [rule for rule in needs if rule not in fired]
