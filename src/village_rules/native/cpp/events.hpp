// The rule events of a step, recorded natively (engine/events.py, engine/context.py): every
// place in core.cpp and solo.cpp that matches a reference `ctx.fire(rule, state, seat)` calls
// `fire(ev, rule, state, seat)` with the state as the reference holds it there. With no sink
// (`ev` null: `apply`, the playouts, the explorer) a site is one pointer test and nothing
// else, as the reference's `fire` returns at once when events are off.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "state.hpp"

namespace village {

// One rule applied, with its moment (engine/events.py RuleEvent; NONE for None).
struct Event {
  const char* rule;  // a rule ID (specs/rules.md), a string literal of the fire site
  int seat, turn_of, market_player;
  bool mass;
  int end_by, round;
};

// One decision of the step (engine/events.py SubStep, without its states): the action id,
// whether the engine took it itself (a single legal action), its first event's index.
struct SubStep {
  int action;
  bool forced;
  size_t first;
};

// What `Game.apply_steps` collects: the events of the step in order, and its sub-steps.
struct Events {
  std::vector<Event> events;
  std::vector<SubStep> steps;
  std::string dropped;  // a planted bug (tests): the events of this rule are left out
  // where asked (the predicates judge every sub-step: `Game.apply_judged`), the state each
  // forced sub-step is taken at, its `before` (and the previous sub-step's `after`; the first
  // sub-step's `before` is the caller's state); null: none kept
  std::vector<State>* states = nullptr;

  // events.moment: turn_of from `turn`; the open market day's trigger; whether a mass is
  // held; the seat itself for END-01 / END-10 (fired before the state records it), else
  // end_triggered_by; the seat defaults to turn_of
  void record(const char* rule, const State& s, int seat) {
    if (!dropped.empty() && dropped == rule) return;
    int turn_of = s.turn;
    int market_player = s.market_day && !s.market_day->closed ? s.market_day->trigger : NONE;
    bool setter = std::strcmp(rule, "END-01") == 0 || std::strcmp(rule, "END-10") == 0;
    int end_by = setter && seat != NONE ? seat : s.end_triggered_by;
    events.push_back({rule, seat != NONE ? seat : turn_of, turn_of, market_player, s.mass.has_value(), end_by,
                      s.round});
  }

  // core._Recorder: a decision begins a sub-step (the given action's, or a forced one),
  // taken at the state `at`
  void open(int action, bool forced, const State& at) {
    steps.push_back({action, forced, events.size()});
    if (states != nullptr && forced) states->push_back(at);
  }
};

// Context.fire: record `rule` at `s` for `seat` (NONE: the seat whose turn it is), if asked.
inline void fire(Events* ev, const char* rule, const State& s, int seat = NONE) {
  if (ev != nullptr) ev->record(rule, s, seat);
}

}  // namespace village
