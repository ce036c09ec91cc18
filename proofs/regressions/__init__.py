"""The link's regression inputs: every game that ever broke a clause of the z3 model, replayed
through the link before any proof is printed (`village_rules.proofs.link.regressions`). A
data package: this folder, proofs/regressions/ in the repository, ships as
`village_rules/proofs/regressions/` (setup.py)."""
