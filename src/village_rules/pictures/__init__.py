"""Pictures of the game: a state or the travel map drawn as SVG."""
