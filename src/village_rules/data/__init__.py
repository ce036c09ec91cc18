"""The data layer: the named pieces of the game, the typed component data of an edition, its
loader and provenance, and the shipped data files (`big-box-2023.json`, `original-2011.json`).
Imports nothing but `village_rules.errors` and `village_rules.rule_ids`."""
