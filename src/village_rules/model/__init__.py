"""The game-state model: actions and their notation, pending steps, the immutable state and
Carla's board, chance resolution, a plain-text picture of a state, and the fast
constructors (`frozen_build`, `evolve`) that serve the state's frozen dataclasses."""
