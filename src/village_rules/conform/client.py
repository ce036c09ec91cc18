"""`ProtocolEngine`: an implementation in a subprocess, driven over the JSON-lines protocol.

Every request has a deadline (`step_limit` seconds; `start_limit` for the first, which
includes the program's start-up): reads and writes wait with `select` on non-blocking pipes,
never longer. A child that does not answer in time is killed (its whole process group); one
that exits, prints something that is not JSON, or answers in the wrong shape raises
`ImplementationError` saying so. The runner turns that into a verdict naming the step, so a
broken implementation can never hang or crash `conform`. The time limit only guards against
a hang; every budget that decides what is checked is a count.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import IO

from village_rules.conform.protocol import ConformError, GameSetup, ImplementationError
from village_rules.conform.wire import PROTOCOL, VERSION, parse_fraction, parse_player
from village_rules.engine.guards import present

STEP_LIMIT = 10.0
"""Seconds an implementation may take to answer one request (a hang guard only)."""
START_LIMIT = 60.0
"""Seconds for the first answer (`hello`), which includes starting the program."""
MAX_LINE = 64 * 1024 * 1024
"""The longest response line read (a runaway writer is stopped, not buffered for ever)."""


class ProtocolEngine:
    """An `Engine` whose answers come from a subprocess speaking the protocol (`wire`)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        step_limit: float = STEP_LIMIT,
        start_limit: float = START_LIMIT,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not command:
            raise ConformError("--command: no program given")
        self.command = list(command)
        self.step_limit = step_limit
        self.requests = 0
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115  closed by __exit__
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=None if env is None else dict(env),
                start_new_session=True,
            )
        except OSError as exc:
            self._stderr.close()
            raise ConformError(
                f"--command {' '.join(self.command)!r}: cannot start it: {exc.strerror or exc}"
            ) from None
        stdin = present(self._proc.stdin, "conform.client", "the child's standard input (a pipe)")
        stdout = present(self._proc.stdout, "conform.client", "the child's standard output (a pipe)")
        self._in = stdin.fileno()
        self._out = stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = b""
        hello = self._request({"op": "hello", "protocol": PROTOCOL, "version": VERSION}, start_limit)
        if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
            self.close()
            raise ImplementationError(
                f"hello: the implementation speaks {hello.get('protocol')!r} version "
                f"{hello.get('version')!r}, not {PROTOCOL} version {VERSION}"
            )
        name = hello.get("engine")
        self.name = name if isinstance(name, str) else "(unnamed)"

    # --- the transport ---------------------------------------------------------------------

    def _fail(self, problem: str) -> ImplementationError:
        """Kill the child and say what went wrong (with the end of what it wrote to stderr)."""
        self.close()
        self._stderr.seek(0)
        tail = self._stderr.read()[-600:].decode("utf-8", "replace").strip()
        return ImplementationError(problem + (f"; its stderr ends: {tail!r}" if tail else ""))

    def _exited(self) -> str:
        code = self._proc.wait()
        return f"the implementation exited (status {code})"

    def _request(self, msg: dict[str, object], limit: float | None = None) -> dict[str, object]:
        """Send one request, read one response within the limit; its fields when `ok`."""
        op = msg["op"]
        self.requests += 1
        deadline = time.monotonic() + (self.step_limit if limit is None else limit)
        data = (json.dumps(msg, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail(
                    f"{op}: the implementation did not read the request within {self._limit(limit)}"
                )
            try:
                _, writable, _ = select.select([], [self._in], [], left)
                if writable:
                    data = data[os.write(self._in, data) :]
            except (BrokenPipeError, ConnectionResetError):
                raise self._fail(f"{op}: {self._exited()} instead of reading the request") from None
        line = self._read_line(op, deadline, limit)
        try:
            response = json.loads(line)
        except ValueError:
            raise self._fail(f"{op}: the answer is not JSON: {line[:200]!r}") from None
        if not isinstance(response, dict) or not isinstance(response.get("ok"), bool):
            raise self._fail(f"{op}: the answer is not an object with a boolean 'ok': {line[:200]!r}")
        if not response["ok"]:
            error = response.get("error")
            raise ImplementationError(f"{op}: the implementation answered an error: {error!r}"[:600])
        return response

    def _limit(self, limit: float | None) -> str:
        return f"{self.step_limit if limit is None else limit:g} s (the per-step limit)"

    def _read_line(self, op: object, deadline: float, limit: float | None) -> str:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail(f"{op}: no answer within {self._limit(limit)}")
            readable, _, _ = select.select([self._out], [], [], left)
            if not readable:
                continue
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise self._fail(f"{op}: {self._exited()} without answering")
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE:
                raise self._fail(f"{op}: an answer longer than {MAX_LINE} bytes without a line end")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _field(self, op: str, response: dict[str, object], key: str) -> object:
        if key not in response:
            raise self._fail(f"{op}: the answer has no field {key!r}: {json.dumps(response)[:200]}")
        return response[key]

    # --- the engine protocol -------------------------------------------------------------

    def new_game(self, setup: GameSetup) -> None:
        """`new_game` with the set-up's fields."""
        self._request({"op": "new_game", **setup.to_message()})

    def load(self, state_json: str) -> None:
        """`load` with the state object."""
        self._request({"op": "load", "state": json.loads(state_json)})

    def current_player(self) -> int:
        """`current_player`."""
        value = self._field("current_player", self._request({"op": "current_player"}), "player")
        try:
            return parse_player(value)
        except ValueError as exc:
            raise self._fail(f"current_player: {exc}") from None

    def legal_actions(self) -> list[int]:
        """`legal_actions`."""
        value = self._field("legal_actions", self._request({"op": "legal_actions"}), "actions")
        if not isinstance(value, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in value
        ):
            raise self._fail(f"legal_actions: 'actions' is not a list of integer ids: {str(value)[:200]}")
        return value

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """`chance_outcomes`, the probabilities parsed from their fraction texts."""
        value = self._field("chance_outcomes", self._request({"op": "chance_outcomes"}), "outcomes")
        out: list[tuple[int, Fraction]] = []
        for item in value if isinstance(value, list) else [None]:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)):
                raise self._fail(
                    f"chance_outcomes: 'outcomes' is not a list of [id, \"p/q\"]: {str(value)[:200]}"
                )
            try:
                out.append((item[0], parse_fraction(item[1])))
            except ValueError as exc:
                raise self._fail(f"chance_outcomes: {exc}") from None
        return out

    def apply(self, action: int) -> None:
        """`apply`."""
        self._request({"op": "apply", "action": action})

    def state_json(self) -> str:
        """`state`, written back in the canonical form (sorted keys, no spaces)."""
        value = self._field("state", self._request({"op": "state"}), "state")
        if not isinstance(value, dict):
            raise self._fail(f"state: 'state' is not a JSON object: {str(value)[:200]}")
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def scores(self) -> list[int] | None:
        """`scores`."""
        value = self._field("scores", self._request({"op": "scores"}), "scores")
        if value is not None and not (isinstance(value, list) and all(isinstance(s, int) for s in value)):
            raise self._fail(f"scores: 'scores' is not a list of integers or null: {str(value)[:200]}")
        return value

    def winners(self) -> list[int] | None:
        """`winners`."""
        value = self._field("winners", self._request({"op": "winners"}), "winners")
        if value is not None and not (isinstance(value, list) and all(isinstance(s, int) for s in value)):
            raise self._fail(f"winners: 'winners' is not a list of seats or null: {str(value)[:200]}")
        return value

    def close(self) -> None:
        """Say `quit` if it still runs, then make sure the child and its group are gone."""
        proc = self._proc
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.write(self._in, b'{"op":"quit"}\n')
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def __enter__(self) -> ProtocolEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self._stderr.close()
