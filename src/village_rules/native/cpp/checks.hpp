// The state invariants, natively (issue 40, item 2): a line for line reading of
// village_rules.checks.invariants.state_violations(state, legal=None), so that the native
// explorer can check every state it visits as the Python explorer does. The same violations
// in the same order with the same four strings (the texts quote the reference's reprs);
// tests/native/test_native_checks.py ties the two on every state of the small configurations
// and on broken states of every invariant family.
//
// Without `legal`, as that call runs: no structure.has_move or structure.legal_set (they
// need the legal actions handed in), and structure.well asks the core for the legal actions.
//
// The transition invariants too: transition_violations(before, action, after), tied by
// tests/native/test_native_transitions.py on every edge of the small configurations and on
// broken transitions of every invariant.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "state.hpp"

namespace village::checks {

// checks/invariants.py Violation: which invariant, on what component, what was expected and
// what was found.
struct Violation {
  std::string invariant, component, expected, actual;
};

// What the checker asks of the core (core.cpp's Game): the two answers that are rules, not
// bookkeeping, so that the checks are written apart from the rules.
struct Core {
  virtual ~Core() = default;
  virtual void checks_legal(const State& s, std::vector<int>& out) const = 0;  // legal ids, in order
  virtual std::vector<std::tuple<int, long long, long long>> checks_chance(const State& s) const = 0;
};

// A planted bug (tests): one check left out, so that the tie with the Python checker must
// name the difference. The coins' conservation: one violation, on its own, easy to plant;
// for the transitions, transition.prestige (one violation per seat that lost prestige).
enum Plant { PLANT_NONE, PLANT_SKIP_COINS, PLANT_SKIP_PRESTIGE };
int plant_of(const std::string& name);  // "" or a Plant's name; invalid_argument otherwise

// Every violation of a state invariant, in state_violations' order.
std::vector<Violation> state_violations(const Tables& t, const State& s, const Core& core, int plant = PLANT_NONE);

// Every violation of a transition invariant of the step before --action_id--> after, in
// village_rules.checks.invariants.transition_violations' order and words. A sound step
// builds no text and allocates nothing (an empty vector); the texts are built on a second
// pass, only once a check has failed, as the reference does. `action_id` must be an id of
// `t` (invalid_argument otherwise); both states must be of `t`'s edition unless their rules
// or player counts differ (then transition.same_game is all that is read).
std::vector<Violation> transition_violations(const Tables& t, const State& before, int action_id, const State& after,
                                             int plant = PLANT_NONE);

}  // namespace village::checks
