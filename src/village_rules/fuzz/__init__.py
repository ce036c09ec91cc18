"""The seeded random-game fuzzer: one game and one chunk (`games`), whole runs on a process
pool or in this process (`runner`), the Ray backend (`ray_backend`, optional extra) and run
reports (`report`)."""
