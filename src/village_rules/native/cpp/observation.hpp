// The observation tensor, natively: a line for line reading of
// village_rules.adapters.observation.observation_tensor (layout version 1) for the states of
// play (not the set-up deal, which never reaches the core), so that the adapters on the
// native engine observe without decoding the reference's state (docs/native.md, "The
// adapters on the core"). The tensor is observation_array's float for float;
// tests/native/test_native_observation.py ties the two on every state of the `tiny` and
// `solo` configurations and of seeded games of both editions and every player count.
//
// What the tensor reads besides the state is handed over from Python once per edition data
// (village_rules.adapters.native_observation): the order of the per-tile, per-location and
// per-city entries, the pending kinds' order, the field each kind's pending_number holds, and
// `layout(data, players)` itself. Every segment is written against that layout: a segment
// written out of order, at another offset or past its size is refused, naming the segment,
// never written out of range.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "state.hpp"

namespace village {

// Which field of a pending step its `pending_number` holds (observation_parts.NUMBER_FIELDS).
enum NumberField { NUMBER_NONE, NUMBER_REMAINING, NUMBER_POSITION, NUMBER_MAX_STAGE, NUMBER_SLOT };

// One segment of `layout(data, players)`: its name, first float and length.
struct ObservationSegment {
  std::string name;
  int offset = 0, size = 0;
};

// The static data of the tensor of one edition data (set_observation_tables).
struct ObservationTables {
  std::vector<int> tile_index;         // customer tile id -> its index in the per-tile segments, -1: none
  int tiles = 0;                       // how many tiles
  std::vector<int> member_index;       // location id (Tables::locations) -> index in locations(data), -1: none
  std::vector<int> solo_member_index;  // the same in a solo game: locations(data, solo=True)
  int places = 0, solo_places = 0;     // len(locations(data)), len(locations(data, solo=True))
  std::map<std::string, int> city_index;  // city id -> its index in data.cities
  std::array<int, N_KINDS> kind_index{};  // Kind -> its index in SOLO_PENDING_KINDS (-1: none)
  std::array<int, N_KINDS> number{};      // Kind -> NUMBER_*
  std::map<int, std::vector<ObservationSegment>> layouts;  // by player count (1: solo)
};

namespace observation {

// Plants (tests): a difference written on purpose, so that the tie must catch and name it.
enum Plant { PLANT_NONE, PLANT_PILE_FORGETS_LAST };
int plant_of(const std::string& name);  // "" or "customer pile forgets its last tile"; invalid_argument otherwise

// The tensor of `s` as seat `observer` sees it, as the bytes of little-endian float32;
// `current` is the state's current player (Game::current_player: a seat, -1 chance, -4 the
// end). invalid_argument for an observer that is not a seat, NotSupportedError where the
// tables have no observation data (set_observation_tables was not called for them).
std::string tensor_bytes(const Tables& t, const State& s, int observer, int current, int plant = PLANT_NONE);

// set_observation_tables, and Tables.observes (whether it was called)
void bind(pybind11::module_& m);

}  // namespace observation
}  // namespace village
