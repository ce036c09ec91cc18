// The catalogue's STEP queries, natively (issue 40, item 3): each concrete predicate of
// village_rules/proofs/catalogue/catalogue.py and rule_queries.py whose horizon is STEP,
// restated over one sub-step (engine/events.py SubStep: the state before it, its action,
// its rule events, the state after it), so that the native explorer can judge a query on
// every edge as the Python explorer does (explore/search.py `expand`: after every sub-step
// of an edge, a forced decision included, with that sub-step's events).
//
// A STEP predicate reads no further back than the sub-step (History.states[-2], actions[-1],
// last_events, states[-1]), so nothing of the path is kept here; the PATH queries that have
// a monitor are monitors.hpp's. tests/native/test_native_predicates.py ties every verdict to
// the Python predicate's after every sub-step of every edge of the shipped configurations.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "events.hpp"
#include "state.hpp"

namespace village::predicates {

// The STEP queries in the catalogue's order (CATALOGUE, horizon STEP), by their names.
enum StepQuery {
  END_MARKET_OTHER, END_MARKET_TRIGGER, FREE_FINAL_ACTION, HIDDEN_LOWEST_DEATH, SHORT_SEEDING,
  ALL_CUSTOMERS_SERVED, SHARED_WIN, GRAIN_SHORT_AT_HARVEST, COINS_SHORT_AT_MILL, MARKERS_OUT_NEW_CITY,
  NO_LIVING_MEMBER_ACTS, HIGH_SCORE, DEATH_DURING_MASS, MARKET_DAY_DURING_MASS, TRIGGER_FINAL_ACTION,
  N_STEP_QUERIES
};
inline const std::array<const char*, N_STEP_QUERIES> STEP_NAMES = {
    "end-market-other", "end-market-trigger", "free-final-action", "hidden-lowest-death", "short-seeding",
    "all-customers-served", "shared-win", "grain-short-at-harvest", "coins-short-at-mill",
    "markers-out-new-city", "no-living-member-acts", "high-score", "death-during-mass",
    "market-day-during-mass", "trigger-final-action"};
constexpr uint32_t ALL_STEP_QUERIES = (1u << N_STEP_QUERIES) - 1;

// What the predicates ask of the core (core.cpp's Game): the answers that are rules, kept
// there (the legal ids of query 11, the final scoring of queries 8 and 13).
struct Core {
  virtual ~Core() = default;
  virtual void predicates_legal(const State& s, std::vector<int>& out) const = 0;  // legal ids, in order
  virtual std::vector<int> predicates_scores(const State& s) const = 0;   // score_breakdown's totals
  virtual std::vector<int> predicates_winners(const State& s) const = 0;  // scoring.winners
};

// One sub-step as a predicate sees it: History.states[-2], actions[-1] (an action id of the
// tables), last_events(h) (events[first, last)), History.last.
struct Sub {
  const State& before;
  int action;
  const Event* events;
  size_t n_events;
  const State& after;
};

// A planted bug (tests): a predicate or monitor made to differ from the Python one, so that
// the tie must name the query, the configuration, the edge and the sub-step: query 2 never
// holds; query 6a's monitor holds after three monks in a row (monitors.cpp).
enum Plant { PLANT_NONE, PLANT_FREE_FINAL_ACTION_NEVER, PLANT_FOUR_MONKS_AFTER_THREE };
int plant_of(const std::string& name);  // "" or a plant's name (PLANT_NAMES); invalid_argument otherwise
inline const std::array<const char*, 2> PLANT_NAMES = {"free-final-action never holds",
                                                      "mass-four-monks holds after three"};

// The STEP queries of `which` (bit q: StepQuery q) that hold after the sub-step, as bits.
// Query 13 reads `t.high_score` (catalogue.HIGH_SCORE, handed over by Python).
uint32_t judge(const Tables& t, const Core& core, const Sub& sub, uint32_t which = ALL_STEP_QUERIES,
               int plant = PLANT_NONE);

// --- what several predicates and monitors read (proofs/search/history.py) --------------

// GameState.current_player: the seat to decide, CHANCE (-1) or TERMINAL (-4)
inline int current_player(const State& s) {
  int k = s.pending.kind;
  if (k == GAME_OVER) return -4;
  if (k == SEED_DRAW || k == REFILL_DRAW || k == MASS_DRAW || k == FATE_REVEAL) return -1;
  return s.pending.seat;
}

inline bool is_chance(const State& s) { return current_player(s) == -1; }

// components.is_alive: born and not dead (not unborn, chronicled, buried or removed)
inline bool is_alive(const Tables& t, int location) {
  int place = t.places[location];
  return place != P_UNBORN && place != P_CHRONICLE && place != P_GRAVEYARD && place != P_REMOVED;
}

// history.dead: how many of a seat's members have died (chronicle, graveyard or removed)
inline int dead(const Tables& t, const State& s, int seat) {
  int n = 0;
  for (int m : s.players[seat].members) {
    int place = t.places[m];
    n += place == P_CHRONICLE || place == P_GRAVEYARD || place == P_REMOVED;
  }
  return n;
}

// history.same_market_day: consecutive states hold the same market day (its player stays,
// passes only accumulate, neither the first sale nor the closing is undone)
bool same_market_day(const State& a, const State& b);

}  // namespace village::predicates
