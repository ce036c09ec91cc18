"""The proof catalogue's stored results: the verdict table (results.json, results.md), each
reachable query's witness game (*.json) with its note (*.md), and each unreachable query's
proof (issue 41). A data package: this folder, proofs/witnesses/ in the repository, ships as
`village_rules/proofs/witnesses/` (setup.py); `village_rules.proofs.table.stored` reads it."""
