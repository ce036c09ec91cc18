"""Exhaustive exploration: every reachable state of a small configuration, on the real engine.

`search.explore` visits, breadth first, every state reachable from every set-up deal of a
reduced configuration (`configs`), checks every invariant at every state and edge, and
decides every catalogue query that reads one step; `seen` is its compact fingerprint set;
`witnesses` turns a path of the graph into a replayable game log; `monitors` and `pump`
decide the queries that read further back (the score pump on the graph without prestige),
`shape` the graph's cycles and end odds. `village-rules explore` runs it
(docs/exploration.md). `native` counts the same states in C++ over the optional native
core (docs/native.md); nothing here imports it.
"""
