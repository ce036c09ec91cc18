"""The checkers: state and transition invariants, the incremental checker the fuzzer runs at
every step, and the cross-field checks of a state read from JSON. They call the engine and
never change it."""
