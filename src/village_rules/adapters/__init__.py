"""Game-tree and RL adapters: integer ids, observation tensors, bounds, golden playthroughs,
the OpenSpiel game and the PettingZoo environment (optional extras)."""
