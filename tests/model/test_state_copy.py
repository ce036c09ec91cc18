"""Cloning and pickling a state: copies are the state itself (it is immutable), a pickle
carries the rules as edition name + fingerprint (small), and data a user loaded in this
process pickles too; data that is not available fails with a clear `DataError`."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest

from village_rules.data.edition import EditionData
from village_rules.data.loader import builtin_edition, load_edition, resolve_edition
from village_rules.drivers.play import play_logged
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import DataError


def test_copy_and_deepcopy_return_the_state_itself() -> None:
    final, _ = play_logged("big-box-2023", 4, 2)
    assert copy.copy(final) is final
    assert copy.deepcopy(final) is final
    assert copy.deepcopy([final])[0] is final
    data = final.rules.data
    assert copy.deepcopy(data) is data


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_a_pickled_state_is_small_and_equal_after_loading(edition: str) -> None:
    final, _ = play_logged(edition, 4, 3)
    for state in (new_game(edition, 4, 3), final):
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        assert len(blob) <= 5 * 1024
        back = pickle.loads(blob)
        assert back == state
        assert back.rules.data is builtin_edition(edition)
        assert legal_actions(back) == legal_actions(state)


def test_the_legal_actions_cache_does_not_travel() -> None:
    state = new_game("big-box-2023", 3, 1)
    while state.is_chance:
        state = apply(state, chance_outcomes(state)[0][0])
    assert state.legal_cache is not None
    back = pickle.loads(pickle.dumps(state))
    assert back.legal_cache is None
    assert back == state


def _custom(tmp_path: Path, coins: int) -> EditionData:
    raw = json.loads(builtin_edition("big-box-2023").canonical_json)
    raw["starting_coins"]["value"] = coins
    path = tmp_path / f"custom-{coins}.json"
    path.write_text(json.dumps(raw))
    return load_edition(path)


def test_user_loaded_data_pickles_within_the_process(tmp_path: Path) -> None:
    data = _custom(tmp_path, 3)
    assert data.fingerprint != builtin_edition("big-box-2023").fingerprint
    state = new_game(data, 3, 5)
    back = pickle.loads(pickle.dumps(state))
    assert back == state
    assert back.rules.data is data
    assert back.rules.data.starting_coins == 3


def test_data_that_is_not_available_is_a_clear_error() -> None:
    with pytest.raises(DataError, match=r"rules\.data.*not loaded in this process.*load_edition"):
        resolve_edition("my-board", "0" * 64)
    # a shipped edition's name with another fingerprint (e.g. data from another version)
    with pytest.raises(DataError, match="big-box-2023"):
        resolve_edition("big-box-2023", "f" * 64)
