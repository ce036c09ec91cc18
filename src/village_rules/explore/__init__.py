"""Exhaustive exploration: every reachable state of a small configuration, on the real engine.

`search.explore` visits, breadth first, every state reachable from every set-up deal of a
reduced configuration (`configs`), checks every invariant at every state and edge, and
decides every catalogue query that reads one step; `seen` is its compact fingerprint set;
`witnesses` turns a path of the graph into a replayable game log. `village-rules explore`
runs it (docs/exploration.md).
"""
