"""Drivers of the engine: playing and replaying games with policies and a seeded RNG, the
game log, building scenarios, and saving and loading states as JSON (checked on load)."""
