"""The reference engine: one module per part of the rules, dispatched by `core`."""
