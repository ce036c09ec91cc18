// The path monitors, natively (monitors.hpp): each update and verdict a restatement of its
// function in village_rules/explore/monitors.py, named beside it.

#include "monitors.hpp"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace village::predicates {

namespace {

constexpr int CARLA = 1;   // model/carla_board.py CARLA: Carla's seat in a solo game
constexpr int MIXED = -2;  // monitors.MIXED: two seats have bought in the same mass

Value none() { return Value{}; }

Value tuple(std::initializer_list<int> xs) {
  Value out;
  out.size = 0;
  for (int x : xs) out.v[out.size++] = x;
  return out;
}

// `value[k] if value else fallback`: a None or an empty tuple is false in Python
int first_or(const Value& value, int fallback) { return value.size > 0 ? value.v[0] : fallback; }

int verb(const Tables& t, int action) { return t.decoded.at(action).verb; }

// monitors._deaths: every seat's dead members
Value deaths(const Tables& t, const State& s) {
  Value out;
  out.size = static_cast<int>(s.players.size());
  if (out.size > static_cast<int>(out.v.size())) throw std::invalid_argument("more seats than a value holds");
  for (int seat = 0; seat < out.size; ++seat) out.v[seat] = dead(t, s, seat);
  return out;
}

// monitors._turn_update: the deaths at the start of the turn (the last ChooseTurn before now)
Value turn_update(const Tables& t, const Value& value, const Sub& sub) {
  return sub.before.pending.kind == CHOOSE_TURN ? deaths(t, sub.before) : value;
}

// monitors._two_deaths: some seat died twice since the turn began
bool two_deaths(const Tables& t, const Value& value, const Sub& sub) {
  if (value.none()) return false;
  Value now = deaths(t, sub.after);
  if (now.size != value.size) throw std::invalid_argument("two-deaths: the value is not one count per seat");
  for (int seat = 0; seat < now.size; ++seat)
    if (now.v[seat] - value.v[seat] >= 2) return true;
  return false;
}

// monitors._monks_update: the monks drawn in a row (at most 4)
Value monks_update(const Tables& t, const Value& value, const Sub& sub) {
  int run = first_or(value, 0);
  return verb(t, sub.action) == V_DRAW_MONK ? tuple({std::min(run + 1, 4)}) : tuple({0});
}

// monitors._buyers_update: (the only buyer so far or MIXED, the purchases so far) in the mass
Value buyers_update(const Tables& t, const Value& value, const Sub& sub) {
  if (!sub.before.mass) return tuple({-1, 0});
  int seat = value.size > 0 ? value.v[0] : -1, count = value.size > 0 ? value.v[1] : 0;
  if (value.size > 0 && value.size != 2) throw std::invalid_argument("mass-one-buyer: the value is not a pair");
  if (verb(t, sub.action) == V_BUY_FROM_BAG) {
    int me = current_player(sub.before);
    seat = seat == -1 || seat == me ? me : MIXED;
    count = std::min(count + 1, t.mass_pieces);
  }
  return tuple({seat, count});
}

// monitors._one_buyer: this purchase fills the mass, and every purchase of it was this seat's
bool one_buyer(const Tables& t, const Value& value, const Sub& sub) {
  if (verb(t, sub.action) != V_BUY_FROM_BAG || !sub.before.mass || value.none()) return false;
  if (sub.before.mass->bought + 1 < t.mass_pieces) return false;
  return value.v[0] == current_player(sub.before) && value.v[1] == t.mass_pieces;
}

// monitors._waived: the pass between these states was the first-chance pass AMB-06 b does not count
bool waived(const State& before, const State& after) {
  return before.market_day && after.market_day && after.market_day->first_pass_waived &&
         !before.market_day->first_pass_waived;
}

// monitors._passers_update: (the seats that passed, with a pass that counted, in the day
// `after` is in; whether this sub-step is a decision of a seat that passed in `before`'s day)
Value passers_update(const Tables& t, const Value& value, const Sub& sub) {
  const State& before = sub.before;
  int mask = first_or(value, 0);
  const auto& day = before.market_day;
  int seat = current_player(before);
  bool acts = day && !day->closed && seat >= 0;  // not chance, not the end
  bool hit = acts && ((mask >> seat) & 1);
  if (day && verb(t, sub.action) == V_PASS && !waived(before, sub.after)) mask |= 1 << seat;
  return tuple({same_market_day(before, sub.after) ? mask : 0, hit ? 1 : 0});
}

// monitors._hit: the update found the query's situation
bool hit(const Value& value) { return !value.none() && value.size > 1 && value.v[1] == 1; }

// monitors._sold: the customers served so far, by every seat
int sold(const State& s) {
  int n = 0;
  for (const Player& p : s.players) n += static_cast<int>(p.customers.size());
  return n;
}

// monitors._purse: (life-time, green cubes, coins) of a seat
std::array<int, 3> purse(const State& s, int seat) {
  const Player& p = s.players.at(seat);
  return {p.lifetime, p.cubes[GREEN], p.coins};
}

// monitors._free_later_sale: not the day's first sale, and the seller spent no time, no
// green cube and no coin
bool free_later_sale(int start, int sold_before, int seat, const std::array<int, 3>& was, const State& after) {
  if (start < 0 || sold_before == start) return false;
  std::array<int, 3> now = purse(after, seat);
  return now[0] == was[0] && now[1] >= was[1] && now[2] >= was[2];
}

// monitors._sales_update: (the sales made before the day `after` is in, or -1 outside one;
// whether this sub-step completes a free sale that is not the day's first; a sale awaiting
// its payment: the sales before its day, the sales before it, its seller, the seller's purse)
Value sales_update(const Tables& t, const Value& value, const Sub& sub) {
  const State &before = sub.before, &after = sub.after;
  int start;
  if (value.none())
    start = before.market_day ? sold(before) : -1;
  else
    start = before.market_day ? value.v.at(0) : -1;  // value[0]: an empty tuple raises in Python
  if (!value.none() && value.size == 0) throw std::invalid_argument("free-sale: an empty value");
  bool found = false;
  Value out;
  int v = verb(t, sub.action);
  if (v == V_SERVE) {
    int seat = current_player(before);
    std::array<int, 3> was = purse(before, seat);
    if (after.pending.kind == CHOOSE_PAYMENT && after.pending.action == t.texts.at(sub.action)) {
      out = tuple({0, 0, start, sold(before), seat, was[0], was[1], was[2]});
    } else {
      found = free_later_sale(start, sold(before), seat, was, after);
    }
  } else if (v == V_PAY && !value.none() && value.size > 2) {
    if (value.size != 8) throw std::invalid_argument("free-sale: a waiting sale is not 6 ints");
    found = free_later_sale(value.v[2], value.v[3], value.v[4], {value.v[5], value.v[6], value.v[7]}, after);
  }
  int following;
  if (same_market_day(before, after))
    following = start;
  else
    following = after.market_day ? sold(after) : -1;
  if (out.none()) out = tuple({0, 0});
  out.v[0] = following;
  out.v[1] = found ? 1 : 0;
  return out;
}

// monitors._carla_update: (Carla's customers when the day `after` is in began, or -1 outside
// one; whether she has served two since `before`'s day began)
Value carla_update(const Value& value, const Sub& sub) {
  const State &before = sub.before, &after = sub.after;
  if (!before.carla) return tuple({-1, 0});
  auto served = [](const State& s) { return static_cast<int>(s.players.at(CARLA).customers.size()); };
  int start = !value.none() ? value.v.at(0) : served(before);
  if (value.size == 0) throw std::invalid_argument("carla-two-customers: an empty value");
  start = before.market_day ? start : -1;
  bool found = start >= 0 && served(after) - start >= 2;
  int following;
  if (same_market_day(before, after))
    following = start;
  else
    following = after.market_day ? served(after) : -1;
  return tuple({following, found ? 1 : 0});
}

}  // namespace

Value start(int monitor) {
  switch (monitor) {
    case MASS_FOUR_MONKS: return tuple({0});
    case MASS_ONE_BUYER: return tuple({-1, 0});
    case TWO_DEATHS_ONE_TURN: case TWO_DEATHS_OWED: case ACT_AFTER_PASS: case FREE_SALE_NOT_FIRST:
    case FREE_SALE_AMB_06_B: case CARLA_TWO_CUSTOMERS: return none();
    default: throw std::invalid_argument("no monitor " + std::to_string(monitor));
  }
}

Value update(int monitor, const Tables& t, const Value& value, const Sub& sub) {
  switch (monitor) {
    case TWO_DEATHS_ONE_TURN: case TWO_DEATHS_OWED: return turn_update(t, value, sub);
    case MASS_FOUR_MONKS: return monks_update(t, value, sub);
    case MASS_ONE_BUYER: return buyers_update(t, value, sub);
    case ACT_AFTER_PASS: return passers_update(t, value, sub);
    case FREE_SALE_NOT_FIRST: case FREE_SALE_AMB_06_B: return sales_update(t, value, sub);
    case CARLA_TWO_CUSTOMERS: return carla_update(value, sub);
    default: throw std::invalid_argument("no monitor " + std::to_string(monitor));
  }
}

bool holds(int monitor, const Tables& t, const Value& value, const Sub& sub, int plant) {
  switch (monitor) {
    case TWO_DEATHS_ONE_TURN: case TWO_DEATHS_OWED: return two_deaths(t, value, sub);
    case MASS_FOUR_MONKS:  // monitors._four_monks
      return !value.none() && value.size > 0 && value.v[0] >= (plant == PLANT_FOUR_MONKS_AFTER_THREE ? 3 : 4);
    case MASS_ONE_BUYER: return one_buyer(t, value, sub);
    case ACT_AFTER_PASS: case FREE_SALE_NOT_FIRST: case FREE_SALE_AMB_06_B: case CARLA_TWO_CUSTOMERS:
      return hit(value);
    default: throw std::invalid_argument("no monitor " + std::to_string(monitor));
  }
}

}  // namespace village::predicates
