// The path monitors, natively (issue 40, item 3): each monitor of
// village_rules/explore/monitors.py (a start value, its update on every sub-step, and its
// query on the updated value) restated over one sub-step (predicates.hpp Sub), so that the
// native explorer can decide a PATH query on the product of the state graph and the
// monitor as the Python explorer does. A value is monitors.py's `Value`, a tuple of ints or
// None, kept here as up to 8 ints. tests/native/test_native_predicates.py ties every update
// and verdict to the Python monitor's after every sub-step of every edge of the shipped
// configurations and along the stored witnesses.
#pragma once

#include <array>
#include <unordered_set>

#include "predicates.hpp"

namespace village::predicates {

// The monitors in monitors.py MONITORS' order, by their queries' names.
enum MonitorKind {
  TWO_DEATHS_ONE_TURN, TWO_DEATHS_OWED, MASS_FOUR_MONKS, MASS_ONE_BUYER, ACT_AFTER_PASS, FREE_SALE_NOT_FIRST,
  FREE_SALE_AMB_06_B, CARLA_TWO_CUSTOMERS, N_MONITORS
};
inline const std::array<const char*, N_MONITORS> MONITOR_NAMES = {
    "two-deaths-one-turn", "two-deaths-owed", "mass-four-monks", "mass-one-buyer",
    "act-after-pass", "free-sale-not-first", "free-sale-amb-06-b", "carla-two-customers"};

// monitors.py Value: None (size -1) or a tuple of `size` ints (the longest, the sales
// monitor's with a sale awaiting its payment, has 8).
struct Value {
  int size = -1;
  std::array<int, 8> v{};
  bool none() const { return size < 0; }
  bool operator==(const Value& o) const {
    if (size != o.size) return false;
    for (int k = 0; k < size; ++k)
      if (v[k] != o.v[k]) return false;
    return true;
  }
  bool operator!=(const Value& o) const { return !(*this == o); }
};

// What a judged step of the explorer asks for and answers (explore.hpp explore_step_judged).
struct Judging {
  uint32_t which = 0;     // the STEP queries to judge after every sub-step
  uint32_t monitors = 0;  // the monitors folded over the sub-steps, as bits in MonitorKind order
  std::array<Value, N_MONITORS> values;  // theirs before the step; after the step, after it
  uint32_t held = 0;       // answered: the STEP queries of `which` that held after some sub-step
  uint32_t monitored = 0;  // answered: the monitors of `monitors` whose query held after some sub-step
  // asked for where not null: every rule ID the step fired is added (the string literals of
  // the fire sites), so that a query whose rules no edge fires is called vacuous (scope.py)
  std::unordered_set<const char*>* fired = nullptr;
};

// Monitor.start
Value start(int monitor);
// Monitor.update(value, before, action, after)
Value update(int monitor, const Tables& t, const Value& value, const Sub& sub);
// Monitor.holds(value, before, action, after), on the value `update` returned
bool holds(int monitor, const Tables& t, const Value& value, const Sub& sub, int plant = PLANT_NONE);

}  // namespace village::predicates
