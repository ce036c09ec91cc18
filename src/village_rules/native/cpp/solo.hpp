// The solo mode of the native core (one player against Carla, 2023 pp. 15-19): Carla's
// board, her cube taking, the fate tiles, her reactions and deaths, each a line for line
// reading of engine/carla.py, engine/solo_mass.py and the solo branches of engine/core.py,
// end_of_game.py, mass.py, market_day.py, scoring.py and time_and_death.py. The core
// (core.cpp) calls these at the points where the reference tests `state.is_solo`.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "events.hpp"
#include "state.hpp"

namespace village::solo {

constexpr int PLAYER = 0;  // model/carla_board.py PLAYER
constexpr int CARLA = 1;   // model/carla_board.py CARLA

// What the solo steps ask of the core (core.cpp's Game): the steps they share with a game
// of several players, so that they are written once.
struct Core {
  virtual ~Core() = default;
  virtual void solo_market_start(State& s, int seat) const = 0;               // market_day.start
  virtual void solo_note_last_space(State& s, int seat, int dest) const = 0;  // time_and_death.note_last_space
  virtual int solo_chronicle_free(const State& s, int category) const = 0;    // GameState.chronicle_free
  virtual int solo_graveyard_free(const State& s) const = 0;                  // GameState.graveyard_free
};

// A step that follows: a pending step (`has`) or none (the reference's `(state, None)`).
struct Step {
  bool has = false;
  Pending p;
};

// model/state.py is_carla: seat 1 of a solo game
inline bool is_carla(const State& s, int seat) { return s.carla.has_value() && seat == CARLA; }

// --- loading and writing (drivers/serialization.py) --------------------------------------
void load(const pybind11::dict& carla, State& s, const Tables& t);
std::string to_json(const CarlaBoard& c);

// --- chance, legal actions, apply --------------------------------------------------------
// `ev`: the step's rule events (events.hpp), fired where the reference fires them; null when
// not asked for
std::vector<std::tuple<int, long long, long long>> fate_outcomes(const State& s, const Tables& t);
std::vector<int> choice_ids(const State& s, const Tables& t);           // at ChooseCarlaCube
void reveal(State& s, const Tables& t, int id, Events* ev);             // at FateReveal
Step take_chosen(State& s, const Tables& t, int id, Events* ev);        // at ChooseCarlaCube
void owe_take(State& s, int space, int cube, Events* ev);               // turn.effect (SOLO-10)
void after_well(State& s, Events* ev);                                  // core._perform (SOLO-25)
std::optional<Step> next_step(State& s, const Tables& t, const Core& core, Events* ev);  // carla.next_step
void market_turn(State& s, Events* ev);                                 // Carla's chance in a market day
int entry_stage(const State& s, const Tables& t, int seat, Events* ev);  // solo_mass.entry_stage (NONE: stays)
void new_round(State& s, Events* ev);                                   // carla.new_round (SOLO-26)
int market_player(const State& s, int turn_seat);                       // end_of_game.market_player
void final_seats(const State& s, std::vector<int>& order, Events* ev);  // carla.final_seats (SOLO-28)

// The solo data of an edition, added to its tables once (village_rules.native.engine.tables_for).
void bind(pybind11::module_& m);

}  // namespace village::solo
