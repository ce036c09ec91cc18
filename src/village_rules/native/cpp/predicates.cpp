// The catalogue's STEP predicates, natively (predicates.hpp): each a restatement of its
// Python concrete predicate, named beside it (proofs/catalogue/catalogue.py unless said).

#include "predicates.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace village::predicates {

namespace {

bool is(const Event& e, const char* rule) { return std::strcmp(e.rule, rule) == 0; }

int verb(const Tables& t, int action) { return t.decoded.at(action).verb; }

// catalogue._end_in_market_day (1a, 1b): an END-01 / END-10 event whose moment is in an
// open market day, the seat that triggered the end the market-day player (1b) or not (1a)
bool end_in_market_day(const Sub& sub, bool by_trigger) {
  for (size_t k = 0; k < sub.n_events; ++k) {
    const Event& e = sub.events[k];
    if ((is(e, "END-01") || is(e, "END-10")) && e.market_player != NONE && e.end_by != NONE &&
        (e.end_by == e.market_player) == by_trigger)
      return true;
  }
  return false;
}

// catalogue._free_action (2): the sub-step's action is a free final action
bool free_action(const Tables& t, const Sub& sub) { return verb(t, sub.action) == V_FREE; }

// catalogue._hidden_lowest_death (3): a seat's member died in the sub-step (alive before, dead
// after, not unborn) while a member with a lower number was in the black bag or unborn
bool hidden_lowest_death(const Tables& t, const Sub& sub) {
  size_t n = sub.after.players.size();
  for (size_t seat = 0; seat < n; ++seat) {
    const auto& was = sub.before.players.at(seat).members;
    const auto& now = sub.after.players[seat].members;
    if (was.size() != now.size()) throw std::invalid_argument("a seat's members changed in number in one sub-step");
    bool died = false;
    int killed = 0;  // the lowest number among the members that died here
    for (size_t i = 0; i < was.size(); ++i)
      if (is_alive(t, was[i]) && !is_alive(t, now[i]) && t.places[now[i]] != P_UNBORN) {
        int number = t.family_numbers.at(i);
        killed = died ? std::min(killed, number) : number;
        died = true;
      }
    if (!died) continue;
    for (size_t i = 0; i < was.size(); ++i) {
      int place = t.places[was[i]];
      if (t.family_numbers.at(i) < killed && (place == P_BAG || place == P_UNBORN)) return true;
    }
  }
  return false;
}

// catalogue._short_seeding (4): a round began in the sub-step, and the green bag and the
// board together hold fewer cubes than the setup card seeds in a round
bool short_seeding(const Tables& t, const Sub& sub) {
  const State& after = sub.after;
  if (after.round != sub.before.round + 1) return false;
  int need = 0;
  for (int n : t.cubes_per_space.at(static_cast<int>(after.players.size()))) need += n;
  int have = 0;
  for (int n : after.green_bag) have += n;
  for (const auto& space : after.spaces)
    for (int n : space) have += n;
  return have < need;
}

// catalogue._all_served (7): the customer pile and every market space empty
bool all_served(const State& s) {
  if (!s.customer_pile.empty()) return false;
  for (int tile : s.market_available)
    if (tile != NONE) return false;
  for (int tile : s.market_waiting)
    if (tile != NONE) return false;
  return true;
}

// catalogue._shared_win (8): the game is over and more than one seat wins
bool shared_win(const Core& core, const State& s) {
  return s.pending.kind == GAME_OVER && core.predicates_winners(s).size() > 1;
}

// engine/harvest.py harvest_yield (HARV-02): an ox and a plow, else a horse and a plow, else the base
int harvest_yield(const Tables& t, const State& s, int seat) {
  const auto& goods = s.players.at(seat).goods;
  if (goods[PLOW] && goods[OX]) return t.harvest_ox_plow;
  if (goods[PLOW] && goods[HORSE]) return t.harvest_horse_plow;
  return t.harvest_base;
}

// catalogue._grain_short (9): a harvest while the supply holds less grain than it would pay
// (its yield, or the room left in the farmyard if that is less)
bool grain_short(const Tables& t, const Sub& sub) {
  if (verb(t, sub.action) != V_HARVEST) return false;
  const State& before = sub.before;
  int seat = current_player(before);
  int room = t.grain_capacity - before.players.at(seat).grain;
  return before.supply_grain < std::min(harvest_yield(t, before, seat), room);
}

// catalogue._coins_short (9b): the mill while the coin supply holds less than it pays
bool coins_short(const Tables& t, const Sub& sub) {
  return verb(t, sub.action) == V_MILL && sub.before.supply_coins < t.mill_coins;
}

// catalogue._markers_out (10): a journey to a city the traveller has no marker on, with
// every marker of theirs placed
bool markers_out(const Tables& t, const Sub& sub) {
  const Decoded& d = t.decoded.at(sub.action);
  if (d.verb != V_TRAVEL) return false;
  const Player& p = sub.before.players.at(current_player(sub.before));
  const std::string& destination = t.nodes.at(d.b);
  return static_cast<int>(p.markers.size()) >= t.travel_markers &&
         std::find(p.markers.begin(), p.markers.end(), destination) == p.markers.end();
}

// catalogue._nobody_home (11): the seat to act has no living member, at a turn or at a
// decision that offers a choice
bool nobody_home(const Tables& t, const Core& core, const State& s) {
  int seat = current_player(s);
  if (seat < 0) return false;
  for (int m : s.players.at(seat).members)
    if (is_alive(t, m)) return false;
  if (s.pending.kind == CHOOSE_TURN) return true;
  std::vector<int> legal;
  core.predicates_legal(s, legal);
  return legal.size() > 1;
}

// catalogue._high_score (13): the game is over and some seat scored at least HIGH_SCORE at
// this player count
bool high_score(const Tables& t, const Core& core, const State& s) {
  if (s.pending.kind != GAME_OVER) return false;
  if (t.high_score.empty())
    throw std::invalid_argument("query high-score: no high scores handed over (set_high_scores)");
  auto bar = t.high_score.find(static_cast<int>(s.players.size()));
  if (bar == t.high_score.end())
    throw std::out_of_range("query high-score: no high score for " + std::to_string(s.players.size()) + " seats");
  std::vector<int> totals = core.predicates_scores(s);
  return !totals.empty() && *std::max_element(totals.begin(), totals.end()) >= bar->second;
}

// rule_queries.death_during_mass (14): a death event (DEATH-03, DEATH-04, END-05) whose
// moment is in a mass, or a death in a sub-step taken at a mass
bool death_during_mass(const Tables& t, const Sub& sub) {
  for (size_t k = 0; k < sub.n_events; ++k) {
    const Event& e = sub.events[k];
    if ((is(e, "DEATH-03") || is(e, "DEATH-04") || is(e, "END-05")) && e.mass) return true;
  }
  if (!sub.before.mass) return false;
  int n = static_cast<int>(sub.after.players.size());
  for (int seat = 0; seat < n; ++seat)
    if (dead(t, sub.after, seat) > dead(t, sub.before, seat)) return true;
  return false;
}

// rule_queries.market_day_during_mass (15): a mass and a market day in the state after, or
// at the moment of a rule event
bool market_day_during_mass(const Sub& sub) {
  if (sub.after.mass && sub.after.market_day) return true;
  for (size_t k = 0; k < sub.n_events; ++k)
    if (sub.events[k].mass && sub.events[k].market_player != NONE) return true;
  return false;
}

// rule_queries.trigger_final_action (17): the final actions are settled and the seat that
// triggered the end is to choose a turn
bool trigger_final_action(const State& s) {
  return s.final_turns.has_value() && s.end_triggered_by != NONE && s.pending.kind == CHOOSE_TURN &&
         s.pending.seat == s.end_triggered_by;
}

bool holds(int q, const Tables& t, const Core& core, const Sub& sub) {
  switch (q) {
    case END_MARKET_OTHER: return end_in_market_day(sub, false);
    case END_MARKET_TRIGGER: return end_in_market_day(sub, true);
    case FREE_FINAL_ACTION: return free_action(t, sub);
    case HIDDEN_LOWEST_DEATH: return hidden_lowest_death(t, sub);
    case SHORT_SEEDING: return short_seeding(t, sub);
    case ALL_CUSTOMERS_SERVED: return all_served(sub.after);
    case SHARED_WIN: return shared_win(core, sub.after);
    case GRAIN_SHORT_AT_HARVEST: return grain_short(t, sub);
    case COINS_SHORT_AT_MILL: return coins_short(t, sub);
    case MARKERS_OUT_NEW_CITY: return markers_out(t, sub);
    case NO_LIVING_MEMBER_ACTS: return nobody_home(t, core, sub.after);
    case HIGH_SCORE: return high_score(t, core, sub.after);
    case DEATH_DURING_MASS: return death_during_mass(t, sub);
    case MARKET_DAY_DURING_MASS: return market_day_during_mass(sub);
    case TRIGGER_FINAL_ACTION: return trigger_final_action(sub.after);
    default: throw std::invalid_argument("no STEP query " + std::to_string(q));
  }
}

}  // namespace

bool same_market_day(const State& a, const State& b) {
  if (!a.market_day || !b.market_day || a.market_day->trigger != b.market_day->trigger) return false;
  const MarketDay &x = *a.market_day, &y = *b.market_day;
  for (int seat : x.passed)
    if (std::find(y.passed.begin(), y.passed.end(), seat) == y.passed.end()) return false;
  return y.trigger_sold >= x.trigger_sold && y.closed >= x.closed;
}

int plant_of(const std::string& name) {
  if (name.empty()) return PLANT_NONE;
  for (size_t k = 0; k < PLANT_NAMES.size(); ++k)
    if (name == PLANT_NAMES[k]) return static_cast<int>(k) + 1;
  throw std::invalid_argument("unknown planted predicate '" + name + "' (known: '" + PLANT_NAMES[0] + "', '" +
                              PLANT_NAMES[1] + "', or '' for none)");
}

uint32_t judge(const Tables& t, const Core& core, const Sub& sub, uint32_t which, int plant) {
  uint32_t held = 0;
  for (int q = 0; q < N_STEP_QUERIES; ++q)
    if ((which >> q & 1u) && holds(q, t, core, sub)) held |= 1u << q;
  if (plant == PLANT_FREE_FINAL_ACTION_NEVER) held &= ~(1u << FREE_FINAL_ACTION);
  return held;
}

}  // namespace village::predicates
