// The state invariants, natively (checks.hpp): each check a line for line reading of its
// function in village_rules/checks/invariants.py, named beside it. The texts are the
// reference's: where it quotes a Python value (a tuple, a dataclass, an enum member) the
// helpers below write that value's repr.

#include "checks.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

namespace village::checks {

namespace {

// the invariant names (invariants.py's constants)
const char* const CUBES = "conservation.cubes";
const char* const COINS = "conservation.coins";
const char* const GRAIN = "conservation.grain";
const char* const GOODS = "conservation.goods";
const char* const CUSTOMERS = "conservation.customers";
const char* const MONKS = "conservation.monks";
const char* const MARKERS = "conservation.markers";
const char* const MEMBERS = "conservation.members";
const char* const GRAIN_CAPACITY = "structure.grain_capacity";
const char* const NON_NEGATIVE = "structure.non_negative";
const char* const CHRONICLE = "structure.chronicle";
const char* const GRAVEYARD = "structure.graveyard";
const char* const REMOVED = "structure.removed";
const char* const MARKER_PLACES = "structure.markers";
const char* const LIFETIME = "structure.lifetime";
const char* const LOCATIONS = "structure.locations";
const char* const SEATS = "structure.seats";
const char* const WELL = "structure.well";
const char* const MARKET_LAYOUT = "structure.market_layout";
const char* const PILE_ORDER = "structure.customer_pile";
const char* const MONKS_ASIDE = "structure.monks_aside";
const char* const CHANCE = "structure.chance";
const char* const PHASE = "structure.phase";
const char* const END_TRIGGER = "structure.end_trigger";
const char* const CARLA = "structure.carla";
const char* const DEAD_STAY_DEAD = "transition.dead_stay_dead";
const char* const NEVER_UNBORN = "transition.never_unborn";
const char* const PRESTIGE = "transition.prestige";
const char* const ROUND = "transition.round";
const char* const CUSTOMERS_KEPT = "transition.customers_kept";
const char* const MARKERS_KEPT = "transition.markers_kept";
const char* const SAME_GAME = "transition.same_game";
const char* const PLAGUE_TIME = "transition.plague_time";
const char* const TRIGGER_NO_FINAL = "transition.trigger_no_final_action";

using Out = std::vector<Violation>;
using std::to_string;

// --- Python's reprs of the values the texts quote ----------------------------------------

// repr(str): single quotes unless the text holds one and no double quote; the escapes of
// ASCII (other bytes, UTF-8, are written as they are: printable text, as city ids are)
std::string repr(const std::string& text) {
  bool single = text.find('\'') != std::string::npos, dbl = text.find('"') != std::string::npos;
  char quote = single && !dbl ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : text) {
    if (c == quote || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + quote;
}

std::string opt(int n) { return n == NONE ? "None" : to_string(n); }
std::string pybool(bool b) { return b ? "True" : "False"; }

// a tuple's repr from its items' reprs: (), (x,), (x, y)
std::string tuple_of(const std::vector<std::string>& items) {
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + (items.size() == 1 ? ",)" : ")");
}
std::string ints(const std::vector<int>& xs) {
  std::vector<std::string> items;
  for (int x : xs) items.push_back(opt(x));
  return tuple_of(items);
}
std::string strs(const std::vector<std::string>& xs) {
  std::vector<std::string> items;
  for (const auto& x : xs) items.push_back(repr(x));
  return tuple_of(items);
}
std::string int_list(const std::vector<int>& xs) {  // repr(list of int): [], [1], [1, 2]
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + to_string(xs[i]);
  return out + "]";
}
std::string str_list(const std::vector<std::string>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + repr(xs[i]);
  return out + "]";
}

// repr of a StrEnum member (<Cube.BROWN: 'brown'>; its name is its value in capitals), or None
template <size_t N>
std::string member(const char* cls, const std::array<const char*, N>& names, int value) {
  if (value == NONE) return "None";
  std::string name = names.at(value);
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return std::string("<") + cls + "." + upper + ": " + repr(name) + ">";
}

// model/state.py Turn.__repr__ and MarketDay.__repr__ (their later fields only when set)
std::string turn_repr(const State& s) {
  if (s.turn == NONE) return "None";
  return "Turn(seat=" + to_string(s.turn) + (s.turn_took_last_cube ? ", took_last_cube=True" : "") + ")";
}
std::string day_repr(const std::optional<MarketDay>& day) {
  if (!day) return "None";
  const MarketDay& d = *day;
  return "MarketDay(trigger=" + to_string(d.trigger) + ", current=" + to_string(d.current) +
         ", passed=" + ints(d.passed) + ", trigger_sold=" + pybool(d.trigger_sold) +
         ", held_deaths=" + to_string(d.held_deaths) + ", closed=" + pybool(d.closed) +
         (d.first_pass_waived ? ", first_pass_waived=True" : "") + ")";
}

// model/carla_board.py CarlaBoard: the dataclass's own repr
std::string carla_repr(const CarlaBoard& c) {
  std::vector<std::string> fate;
  for (int tile : c.fate) fate.push_back(member("FateTile", FATE_NAMES, tile));
  return "CarlaBoard(space=" + to_string(c.space) + ", last_cube=" + member("Cube", CUBE_NAMES, c.last_cube) +
         ", fate=" + tuple_of(fate) + ", look_for=" + member("Cube", CUBE_NAMES, c.look_for) +
         ", look_from=" + member("ActionSpace", SPACE_NAMES, c.look_from) +
         ", took_from=" + member("ActionSpace", SPACE_NAMES, c.took_from) + ", reacted=" + pybool(c.reacted) +
         ", quill=" + pybool(c.quill) + ", well_turn=" + pybool(c.well_turn) +
         ", end_in_market_of=" + opt(c.end_in_market_of) +
         ", action_waits=" + member("ActionSpace", SPACE_NAMES, c.action_waits) + ")";
}

// str(Tally): "2 brown, 1 pink" in the tally's order, or "nothing"
std::string cubes_str(const std::array<int, N_CUBES>& cubes) {
  std::string out;
  for (int c : CUBES_SORTED)
    if (cubes[c]) out += (out.empty() ? "" : ", ") + to_string(cubes[c]) + " " + CUBE_NAMES[c];
  return out.empty() ? "nothing" : out;
}

template <size_t N>
int total(const std::array<int, N>& counts) {
  return std::accumulate(counts.begin(), counts.end(), 0);
}

bool is_chance_kind(int kind) {
  return kind == SEED_DRAW || kind == REFILL_DRAW || kind == MASS_DRAW || kind == FATE_REVEAL;
}

// the pending step's seat (getattr(state.pending, "seat", None)): only the decisions have one
int pending_seat(const Pending& p) { return p.seat; }

bool contains(const std::vector<int>& xs, int x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// --- conservation ----------------------------------------------------------------------

// _conserved: per key of the edition's pieces (its order), then any key with pieces the
// edition has none of, in the order the counting first met it (the tallies' order)
// The keys met, in the order first met (at most N: no allocation, as the explorer checks
// every state).
template <size_t N>
struct Met {
  std::array<int, N> keys{};
  size_t size = 0;
  void add(int k) {
    for (size_t i = 0; i < size; ++i)
      if (keys[i] == k) return;
    keys[size++] = k;
  }
  const int* begin() const { return keys.data(); }
  const int* end() const { return keys.data() + size; }
};

template <size_t N>
void conserved(Out& out, const char* name, const std::array<const char*, N>& names, const std::array<int, N>& keys,
               const std::array<int, N>& expected, const std::array<int, N>& counts, const Met<N>& met) {
  for (int k : keys)
    if (expected[k] && counts[k] != expected[k])
      out.push_back({name, names[k], to_string(expected[k]) + " in the game", to_string(counts[k])});
  for (int k : met)
    if (counts[k] && !expected[k]) out.push_back({name, names[k], "no such piece", to_string(counts[k])});
}

template <size_t N>
void count_into(const std::array<int, N>& tally, const std::array<int, N>& sorted, std::array<int, N>& counts,
                Met<N>& met) {
  for (int k : sorted) {
    if (!tally[k]) continue;  // a tally holds no zero count
    met.add(k);
    counts[k] += tally[k];
  }
}

// cube_violations
void cubes(const Tables& t, const State& s, Out& out) {
  std::array<int, N_CUBES> counts{}, expected{};
  Met<N_CUBES> met;
  count_into(s.supply_cubes, CUBES_SORTED, counts, met);
  count_into(s.green_bag, CUBES_SORTED, counts, met);
  for (const auto& space : s.spaces) count_into(space, CUBES_SORTED, counts, met);
  for (const Player& p : s.players) count_into(p.cubes, CUBES_SORTED, counts, met);
  for (int c : INFLUENCE) expected[c] = t.influence_cubes_each;
  expected[PLAGUE] = t.plague_cubes;
  conserved(out, CUBES, CUBE_NAMES, {BROWN, PINK, ORANGE, GREEN, PLAGUE}, expected, counts, met);
}

// coin_violations, grain_violations
void coins(const Tables& t, const State& s, Out& out) {
  int have = s.supply_coins;
  for (const Player& p : s.players) have += p.coins;
  if (have != t.supply_coins) out.push_back({COINS, "coins", to_string(t.supply_coins) + " in the game", to_string(have)});
}
void grain(const Tables& t, const State& s, Out& out) {
  int have = s.supply_grain;
  for (const Player& p : s.players) have += p.grain;
  if (have != t.supply_grain) out.push_back({GRAIN, "grain", to_string(t.supply_grain) + " in the game", to_string(have)});
}

// goods_violations
void goods(const Tables& t, const State& s, Out& out) {
  std::array<int, N_GOODS> counts{}, expected{};
  Met<N_GOODS> met;
  count_into(s.supply_goods, GOODS_SORTED, counts, met);
  for (const Player& p : s.players) count_into(p.goods, GOODS_SORTED, counts, met);
  expected.fill(t.goods_each);
  conserved(out, GOODS, GOOD_NAMES, {SCROLL, HORSE, PLOW, OX, WAGON}, expected, counts, met);
}

// customer_violations: each tile exactly once, then the tiles the edition does not have
bool customers_sound(const Tables& t, const State& s) {
  // every place's tiles, each an edition's tile met once, and all of them: no violation
  size_t n = 0;
  thread_local std::vector<int> met;
  met.clear();
  auto see = [&](int tile) {  // NONE too is a tile here, unknown, as the listing counts it
    ++n;
    if (!t.customer_points.count(tile) || contains(met, tile)) return false;
    met.push_back(tile);
    return true;
  };
  for (int tile : s.customer_pile)
    if (!see(tile)) return false;
  for (int tile : s.market_available)  // the rows' empty spaces are NONE
    if (tile != NONE && !see(tile)) return false;
  for (int tile : s.market_waiting)
    if (tile != NONE && !see(tile)) return false;
  for (const Player& p : s.players)
    for (int tile : p.customers)
      if (!see(tile)) return false;
  return n == t.customer_points.size();
}

void customers(const Tables& t, const State& s, Out& out) {
  if (customers_sound(t, s)) return;  // the same answer as the listing below, without its map
  std::map<int, int> counts;  // sorted, as `seen` is
  for (int tile : s.customer_pile) counts[tile] += 1;
  for (int tile : s.market_available)
    if (tile != NONE) counts[tile] += 1;
  for (int tile : s.market_waiting)
    if (tile != NONE) counts[tile] += 1;
  for (const Player& p : s.players)
    for (int tile : p.customers) counts[tile] += 1;
  for (const auto& [tile, points] : t.customer_points) {  // the edition's tiles, sorted
    auto it = counts.find(tile);
    int n = it == counts.end() ? 0 : it->second;
    if (n != 1) out.push_back({CUSTOMERS, "tile " + to_string(tile), "exactly once", to_string(n) + " times"});
  }
  for (const auto& [tile, n] : counts)
    if (!t.customer_points.count(tile))
      out.push_back({CUSTOMERS, "tile " + to_string(tile), "no such tile", to_string(n) + " times"});
}

// monk_violations
void monks(const Tables& t, const State& s, Out& out) {
  int have = s.bag_monks + s.monks_aside;
  if (have != t.monks)
    out.push_back({MONKS, "monks", to_string(t.monks) + " (bag + set aside)",
                   to_string(have) + " (" + to_string(s.bag_monks) + " in the bag + " + to_string(s.monks_aside) +
                       " aside)"});
}

bool is_city(const Tables& t, const std::string& id) { return id != t.nodes.at(0) && t.node_ids.count(id); }

// marker_violations
void markers(const Tables& t, const State& s, Out& out) {
  for (size_t seat = 0; seat < s.players.size(); ++seat) {
    const auto& m = s.players[seat].markers;
    auto where = [seat] { return "seat " + to_string(seat); };
    if (static_cast<int>(m.size()) > t.travel_markers)
      out.push_back({MARKERS, where(), "at most " + to_string(t.travel_markers), to_string(m.size())});
    bool distinct = std::is_sorted(m.begin(), m.end()) ? std::adjacent_find(m.begin(), m.end()) == m.end()
                                                        : std::set<std::string>(m.begin(), m.end()).size() == m.size();
    if (!distinct && s.amb19 != 'c')  // AMB-19 c places a marker on every arrival
      out.push_back({MARKER_PLACES, where(), "one marker per city", strs(m)});
    std::vector<std::string> bad;
    for (const auto& city : m)
      if (!is_city(t, city)) bad.push_back(city);
    if (!bad.empty()) out.push_back({MARKER_PLACES, where(), "markers on cities only", str_list(bad)});
    if (!std::is_sorted(m.begin(), m.end())) out.push_back({MARKER_PLACES, where(), "markers sorted", strs(m)});
  }
}

// _end_trigger: the end triggered exactly when the chronicle or the graveyard is full
void end_trigger(const State& s, bool full, Out& out) {
  if (full == (s.end_triggered_by != NONE)) return;
  if (full) {
    out.push_back({END_TRIGGER, "end of the game", "triggered (chronicle or graveyard full)", "not"});
  } else {
    out.push_back({END_TRIGGER, "end of the game", "not triggered while the chronicle and the graveyard have room",
                   "triggered by seat " + to_string(s.end_triggered_by)});
  }
}

// _valid_place: a stage of the council chamber or the church, a city, a crafts building
bool valid_place(const Tables& t, int loc) {
  switch (t.places[loc]) {
    case P_COUNCIL:
      return 1 <= t.stages[loc] && t.stages[loc] <= t.council_stages;
    case P_CHURCH:
      return 1 <= t.stages[loc] && t.stages[loc] <= t.church_stages;
    case P_TRAVEL:  // "travel:<id>" of a city: one id per text, so the cities' own locations
      return contains(t.travel_location, loc);
    case P_CRAFT:
      for (const Craft& c : t.crafts)
        if (c.location == loc) return true;
      return false;
    default:
      return false;
  }
}

// member_violations: the count per seat, the places, the chronicle, the graveyard, the
// removed members and the end's trigger, in one pass
void members(const Tables& t, const State& s, Out& out) {
  std::array<int, N_CATEGORIES> chronicle{};
  int graves = 0, removed = 0;
  const int want = static_cast<int>(t.family_numbers.size());
  for (size_t seat = 0; seat < s.players.size(); ++seat) {
    bool carla = s.carla.has_value() && seat == 1;
    const auto& ms = s.players[seat].members;
    auto where = [seat] { return "seat " + to_string(seat); };
    if (static_cast<int>(ms.size()) != want)
      out.push_back({MEMBERS, where(), to_string(want) + " members", to_string(ms.size()) + " members"});
    for (size_t i = 0; i < ms.size(); ++i) {
      int loc = ms[i];
      switch (t.places[loc]) {
        case P_UNBORN:
        case P_FARMYARD:
        case P_BAG:
          continue;
        case P_CHRONICLE:
          for (int c = 0; c < N_CATEGORIES; ++c)
            if (t.chronicle_location[c] == loc) chronicle[c] += 1;
          continue;
        case P_GRAVEYARD:
          graves += 1;
          continue;
        case P_REMOVED:
          removed += 1;
          continue;
        case P_RESERVE:
          if (carla) continue;  // solo: Carla's "3"s and "4"s on the church (SOLO-04)
          break;
        default:
          break;
      }
      if (valid_place(t, loc)) continue;
      std::string member_at = where() + " member " + to_string(i);
      if (t.places[loc] == P_UNKNOWN) {  // not a location the reference knows
        out.push_back({MEMBERS, member_at, "one location", repr(t.locations[loc])});
      } else {
        out.push_back({LOCATIONS, member_at,
                       "a place of the board (council 1.." + to_string(t.council_stages) + ", church 1.." +
                           to_string(t.church_stages) + ", a city, a craft building)",
                       t.locations[loc]});
      }
    }
  }
  const int n = static_cast<int>(s.players.size());
  const auto& open = t.chronicle_open.at(n);
  const int graves_open = t.graveyard_open.at(n);
  int chronicle_free = 0;
  bool category_full = false;  // AMB-12 b: one full category ends the game
  for (int c = 0; c < N_CATEGORIES; ++c) {
    chronicle_free += std::max(0, open[c] - chronicle[c]);
    category_full = category_full || (open[c] > 0 && chronicle[c] >= open[c]);
    if (chronicle[c] > open[c])
      out.push_back({CHRONICLE, CATEGORY_NAMES[c], "at most " + to_string(open[c]) + " (open spaces)",
                     to_string(chronicle[c])});
  }
  if (graves > graves_open)
    out.push_back({GRAVEYARD, "graveyard", "at most " + to_string(graves_open) + " (open graves)", to_string(graves)});
  if (removed && s.end_triggered_by == NONE)
    out.push_back({REMOVED, "removed members", "none before the end is triggered", to_string(removed)});
  bool full = chronicle_free == 0 || graves >= graves_open || (s.amb12 == 'b' && category_full);
  end_trigger(s, full, out);
}

// --- structure -------------------------------------------------------------------------

// grain_capacity_violations
void grain_capacity(const Tables& t, const State& s, Out& out) {
  for (size_t seat = 0; seat < s.players.size(); ++seat)
    if (s.players[seat].grain > t.grain_capacity)
      out.push_back({GRAIN_CAPACITY, "seat " + to_string(seat), "at most " + to_string(t.grain_capacity) + " grain",
                     to_string(s.players[seat].grain)});
}

// non_negative_violations (its full listing: the same answer as its fast path)
template <size_t N>
void negative_items(const std::string& where, const std::array<int, N>& tally, const std::array<int, N>& sorted,
                    const std::array<const char*, N>& names, Out& out) {
  for (int k : sorted)
    if (tally[k] < 0) out.push_back({NON_NEGATIVE, where + " " + names[k], ">= 0", to_string(tally[k])});
}
template <size_t N>
bool none_negative(const std::array<int, N>& tally) {
  for (int x : tally)
    if (x < 0) return false;
  return true;
}
bool non_negative_sound(const State& s) {
  if (s.round < 1 || s.supply_coins < 0 || s.supply_grain < 0 || s.bag_monks < 0 || s.monks_aside < 0) return false;
  if (!none_negative(s.supply_cubes) || !none_negative(s.supply_goods) || !none_negative(s.green_bag)) return false;
  for (const auto& space : s.spaces)
    if (!none_negative(space)) return false;
  for (const Player& p : s.players)
    if (p.coins < 0 || p.grain < 0 || p.prestige < 0 || !none_negative(p.cubes) || !none_negative(p.goods))
      return false;
  for (int owed : s.deaths_owed)
    if (owed < 0) return false;
  if (s.mass && s.mass->bought < 0) return false;
  if (s.market_day && s.market_day->held_deaths < 0) return false;
  return true;
}
void non_negative(const State& s, Out& out) {
  if (non_negative_sound(s)) return;  // every test below passes: the same answer, no text built
  auto need = [&](const std::string& component, int value, int least = 0) {
    if (value < least) out.push_back({NON_NEGATIVE, component, ">= " + to_string(least), to_string(value)});
  };
  need("round", s.round, 1);
  need("supply coins", s.supply_coins);
  need("supply grain", s.supply_grain);
  need("bag monks", s.bag_monks);
  need("monks aside", s.monks_aside);
  negative_items("supply", s.supply_cubes, CUBES_SORTED, CUBE_NAMES, out);
  negative_items("supply", s.supply_goods, GOODS_SORTED, GOOD_NAMES, out);
  negative_items("green bag", s.green_bag, CUBES_SORTED, CUBE_NAMES, out);
  for (int i = 0; i < N_SPACES; ++i)
    negative_items(std::string("space ") + SPACE_NAMES[i], s.spaces[i], CUBES_SORTED, CUBE_NAMES, out);
  for (size_t seat = 0; seat < s.players.size(); ++seat) {
    const Player& p = s.players[seat];
    std::string where = "seat " + to_string(seat);
    need(where + " coins", p.coins);
    need(where + " grain", p.grain);
    need(where + " prestige", p.prestige);
    negative_items(where, p.cubes, CUBES_SORTED, CUBE_NAMES, out);
    negative_items(where, p.goods, GOODS_SORTED, GOOD_NAMES, out);
  }
  for (size_t seat = 0; seat < s.deaths_owed.size(); ++seat)
    need("seat " + to_string(seat) + " deaths owed", s.deaths_owed[seat]);
  if (s.mass) need("mass bought", s.mass->bought);
  if (s.market_day) need("market day held deaths", s.market_day->held_deaths);
}

// lifetime_violations
void lifetime(const Tables& t, const State& s, Out& out) {
  const int length = t.lifetime_track_length;
  for (size_t seat = 0; seat < s.players.size(); ++seat) {
    int v = s.players[seat].lifetime;
    if (!(0 <= v && v < length))
      out.push_back({LIFETIME, "seat " + to_string(seat), "0 <= lifetime < " + to_string(length), to_string(v)});
  }
}

// seat_violations
void seats(const Tables& t, const State& s, Out& out) {
  const int n = static_cast<int>(s.players.size());
  if (s.carla) {
    if (n != 2 || !t.solo.present)
      out.push_back({SEATS, "players", "2 seats of a solo game, with solo data", to_string(n)});
  } else if (n < t.min_players || n > t.max_players) {
    out.push_back({SEATS, "players", to_string(t.min_players) + ".." + to_string(t.max_players), to_string(n)});
  }
  auto seat = [&](const char* component, int value, bool optional = false, const char* prefix = "") {
    if (value == NONE && optional) return;
    if (value == NONE || !(0 <= value && value < n))
      out.push_back({SEATS, std::string(prefix) + component, "a seat 0.." + to_string(n - 1), opt(value)});
  };
  if (!is_chance_kind(s.pending.kind) && s.pending.kind != GAME_OVER)
    seat(KIND_NAMES[s.pending.kind], pending_seat(s.pending), false, "pending ");
  seat("start player", s.start_player);
  seat("next start holder", s.next_start_holder, true);
  seat("end triggered by", s.end_triggered_by, true);
  if (s.turn != NONE) seat("turn", s.turn);
  if (s.market_day) {
    seat("market day trigger", s.market_day->trigger);
    seat("market day current", s.market_day->current);
    for (int x : s.market_day->passed) seat("market day passed", x);
  }
  if (s.final_turns)
    for (int x : *s.final_turns) seat("final turns", x);
  if (s.mass)
    for (int x : s.mass->stopped) seat("mass stopped buying", x);
  if (static_cast<int>(s.deaths_owed.size()) != n)
    out.push_back({SEATS, "deaths owed", to_string(n) + " entries", to_string(s.deaths_owed.size())});
}

// board_violations (structure.board, the number of action spaces, holds by construction:
// the native state has one tally per space)
void board(const Tables& t, const State& s, Out& out) {
  const auto& [available, waiting] = t.market_rows.at(static_cast<int>(s.players.size()));
  if (static_cast<int>(s.market_available.size()) != available)
    out.push_back({MARKET_LAYOUT, "available row", to_string(available) + " spaces", to_string(s.market_available.size())});
  if (static_cast<int>(s.market_waiting.size()) != waiting)
    out.push_back({MARKET_LAYOUT, "waiting row", to_string(waiting) + " spaces", to_string(s.market_waiting.size())});
  // equal to its own sorted set: strictly increasing
  if (std::adjacent_find(s.customer_pile.begin(), s.customer_pile.end(), std::greater_equal<int>()) !=
      s.customer_pile.end())
    out.push_back({PILE_ORDER, "customer pile", "a sorted set of tiles", ints(s.customer_pile)});
  if (s.monks_aside && !s.mass)
    out.push_back({MONKS_ASIDE, "monks aside", "0 outside a mass", to_string(s.monks_aside)});
}

// well_violations(state, None): with an empty board the legal actions hold no well
void well(const Tables& t, const State& s, const Core& core, Out& out) {
  if (is_chance_kind(s.pending.kind) || s.pending.kind == GAME_OVER) return;
  int on_board = 0;
  for (const auto& space : s.spaces) on_board += total(space);
  if (on_board) return;
  std::vector<int> legal;
  core.checks_legal(s, legal);
  std::string wells;
  for (int id : legal)
    if (t.decoded.at(id).verb == V_WELL) wells += (wells.empty() ? "" : ", ") + t.texts.at(id);
  if (!wells.empty()) out.push_back({WELL, "well", "not legal with an empty board", wells});
}

// str(Fraction(n, d)): reduced, its sign on the numerator, no denominator when it is 1
std::string fraction(long long n, long long d) {
  if (d < 0) n = -n, d = -d;
  long long g = std::gcd(n, d);
  if (g > 1) n /= g, d /= g;
  return d == 1 ? to_string(n) : to_string(n) + "/" + to_string(d);
}

// chance_violations: the outcomes are distinct, each in (0, 1], summing to exactly 1
// (the native outcomes are exact by construction: no inexact probability to refuse)
void chance(const Tables& t, const State& s, const Core& core, Out& out) {
  if (!is_chance_kind(s.pending.kind)) return;
  auto outcomes = core.checks_chance(s);
  if (outcomes.empty()) {
    out.push_back({CHANCE, "outcomes", "at least one outcome", "none"});
    return;
  }
  thread_local std::vector<int> seen;  // a handful of outcomes: a list, no allocation per state
  seen.clear();
  long long common = 1;
  for (const auto& [id, n, d] : outcomes) common = std::lcm(common, d);
  long long numerator = 0;
  for (const auto& [id, n, d] : outcomes) {
    const std::string& text = t.texts.at(id);
    if (contains(seen, id))
      out.push_back({CHANCE, text, "distinct outcomes", "listed twice"});
    else
      seen.push_back(id);
    if (!(0 < n && n <= d)) out.push_back({CHANCE, text, "probability in (0, 1]", fraction(n, d)});
    numerator += n * (common / d);
  }
  if (numerator != common) out.push_back({CHANCE, "outcomes", "probabilities summing to 1", fraction(numerator, common)});
}

// phase_violations: the pending step agrees with the turn, the market day and the mass
void phase(const State& s, Out& out) {
  const Pending& p = s.pending;
  auto bad = [&](const std::string& expected, const std::string& actual) {
    out.push_back({PHASE, KIND_NAMES[p.kind], expected, actual});
  };
  // the texts of a violation, built only for one (the explorer checks every state)
  auto deaths = [&s] { return "deaths owed " + ints(s.deaths_owed); };
  auto finals = [&s] { return "final turns " + (s.final_turns ? ints(*s.final_turns) : std::string("None")); };
  switch (p.kind) {
    case CHOOSE_TURN:
    case SEED_DRAW:
    case CHOOSE_COMPENSATION_CUBE:
    case GAME_OVER: {
      std::vector<std::string> busy;
      if (s.turn != NONE) busy.push_back("turn");
      if (s.market_day) busy.push_back("market day");
      if (s.mass) busy.push_back("mass");
      if (!busy.empty()) {
        std::string names;
        for (const auto& b : busy) names += (names.empty() ? "" : ", ") + b;
        bad("nothing in progress", names + " in progress");
      }
      bool owed = std::any_of(s.deaths_owed.begin(), s.deaths_owed.end(), [](int n) { return n != 0; });
      if (owed && s.amb23 != 'b') bad("no death owed", deaths());  // AMB-23 b: a death may stay owed
      if (p.kind == GAME_OVER && !(s.final_turns && s.final_turns->empty())) bad("every final action taken", finals());
      break;
    }
    case MASS_BUY:
    case MASS_ADVANCE:
    case MASS_DRAW:
      if (!s.mass)
        bad("a mass in progress", "no mass");
      else if (p.kind == MASS_BUY && contains(s.mass->stopped, p.seat))  // AMB-15 b
        bad("a buyer that has not stopped buying", "stopped " + ints(s.mass->stopped));
      break;
    case MARKET_CHOICE:
      if (!s.market_day || s.market_day->closed || contains(s.market_day->passed, p.seat))
        bad("an open market day the seat has not passed", day_repr(s.market_day));
      break;
    case REFILL_DRAW:
      if (!s.market_day || !s.market_day->closed) bad("a closed market day", day_repr(s.market_day));
      break;
    case CHOOSE_ACTION:
      if (s.turn == NONE || s.turn != p.seat) bad("seat " + opt(p.seat) + "'s turn", turn_repr(s));
      break;
    case CHOOSE_DYING:
      if (!(0 <= p.seat && p.seat < static_cast<int>(s.deaths_owed.size())) || s.deaths_owed[p.seat] <= 0)
        bad("a death owed by seat " + opt(p.seat), deaths());
      break;
    default:  // the sub-steps of an action (state_checks checks their fields), Carla's steps (below)
      break;
  }
  if (s.final_turns && s.end_triggered_by == NONE) bad("final actions only once the end is triggered", finals());
}

// carla_violations (solo mode, 2023 pp. 15-18)
void carla(const Tables& t, const State& s, Out& out) {
  if (!s.carla) return;
  if (!t.solo.present) {
    out.push_back({CARLA, "edition data", "a solo section for a solo game", "none"});
    return;
  }
  const CarlaBoard& c = *s.carla;
  const SoloTables& solo = t.solo;
  auto bad = [&](const std::string& component, const std::string& expected, const std::string& actual) {
    out.push_back({CARLA, component, expected, actual});
  };
  bool decision = !is_chance_kind(s.pending.kind) && s.pending.kind != GAME_OVER;
  if (pending_seat(s.pending) == 1 && decision)
    bad(std::string("pending ") + KIND_NAMES[s.pending.kind], "a decision of the player (seat 0), not Carla's", "1");
  if (s.turn != NONE && s.turn != 0) bad("turn", "the player's turn (Carla takes none)", to_string(s.turn));
  if (s.final_turns && contains(*s.final_turns, 1)) bad("final turns", "no final action for Carla", ints(*s.final_turns));
  if (s.start_player != 0) bad("start player", "the player, always (SOLO-07)", to_string(s.start_player));
  const Player& p = s.players.at(1);
  const std::pair<const char*, int> held[] = {
      {"coins", p.coins}, {"grain", p.grain}, {"prestige", p.prestige}, {"lifetime", p.lifetime}, {"goods", total(p.goods)}};
  for (const auto& [name, value] : held)
    if (value)
      bad(std::string("Carla's ") + name, "none (she collects no goods, coins or grain, scores no prestige)",
          to_string(value));
  if (!p.markers.empty()) bad("Carla's markers", "no travel (she takes no action)", strs(p.markers));
  if (!(-1 <= c.space && c.space < solo.track_spaces))
    bad("Carla's board space", "-1.." + to_string(solo.track_spaces - 1), to_string(c.space));
  if ((c.space == -1) != (c.last_cube == NONE))
    bad("Carla's last cube", "a colour exactly once a cube was placed",
        c.last_cube == NONE ? "None" : CUBE_NAMES[c.last_cube]);
  if (c.last_cube != NONE && total(p.cubes) && !p.cubes[c.last_cube])
    bad("Carla's board", std::string("the last cube placed (") + CUBE_NAMES[c.last_cube] + ") on it", cubes_str(p.cubes));
  if (c.fate.size() != solo.fate_slots.size()) {
    bad("fate tiles", to_string(solo.fate_slots.size()) + " slots", to_string(c.fate.size()));
  } else {
    for (size_t set = 0; set < solo.fate_sets.size(); ++set) {
      const auto& tiles = solo.fate_sets[set];
      // set(tiles): the reference's order is its set's (hash) order; here the tiles' first
      // appearance (the two differ only if two tiles of one set are over-shown at once)
      std::vector<int> distinct;
      for (int tile : tiles)
        if (!contains(distinct, tile)) distinct.push_back(tile);
      for (int tile : distinct) {
        int shown = 0;
        for (size_t i = 0; i < c.fate.size(); ++i)
          shown += c.fate[i] == tile && solo.fate_slots[i].first == static_cast<int>(set);
        int have = static_cast<int>(std::count(tiles.begin(), tiles.end(), tile));
        if (shown > have)
          bad("fate tiles " + solo.fate_set_names.at(set),
              "at most " + to_string(have) + " " + FATE_NAMES[tile] + " face up", to_string(shown));
      }
    }
  }
  if ((c.look_for == NONE) != (c.look_from == NONE))
    bad("Carla's owed take", "a colour and a space together",
        "(" + member("Cube", CUBE_NAMES, c.look_for) + ", " + member("ActionSpace", SPACE_NAMES, c.look_from) + ")");
  bool idle = c.look_for == NONE && c.took_from == NONE && c.action_waits == NONE;
  if (!idle && s.turn == NONE) bad("Carla's steps", "owed only during the player's turn", carla_repr(c));
}


// --- transitions ------------------------------------------------------------------------
//
// _transition_violations(before, action, after, text), one pass. With `out` null it answers
// whether any check fails, building no text (the reference's first pass, with text ""); with
// `out` it lists every violation with its texts (the second pass, with the action named).

int python_mod(int a, int m) { return ((a % m) + m) % m; }  // Python's a % m for m > 0

int cubes_on_board(const State& s) {
  int n = 0;
  for (const auto& space : s.spaces) n += total(space);
  return n;
}

// InChronicle | InGraveyard | Removed
bool dead(const Tables& t, int loc) {
  int place = t.places[loc];
  return place == P_CHRONICLE || place == P_GRAVEYARD || place == P_REMOVED;
}

// _plague_time_violations (TURN-03): the taker's token moved the plague time, exactly when
// the step took that cube alone, else a whole number (>= 1) of plague times
bool plague_time(const Tables& t, const State& before, const State& after, const std::string& after_text,
                 Out* out) {
  // before.current_player(): a decision's pending seat; a chance step or the end has none
  if (is_chance_kind(before.pending.kind) || before.pending.kind == GAME_OVER) return false;
  const int seat = before.pending.seat;
  if (!(0 <= seat && seat < static_cast<int>(before.players.size()))) return false;
  if (before.carla && seat == 1) return false;  // before.is_carla(seat)
  const int length = t.lifetime_track_length;
  if (length <= 0) throw std::invalid_argument("a life-time track of no space");  // Python: ZeroDivisionError
  const int moved = python_mod(after.players[seat].lifetime - before.players[seat].lifetime, length);
  const int plague = t.plague_time;
  const int expected = python_mod(plague, length);
  const bool one_take = after.round == before.round && cubes_on_board(before) - cubes_on_board(after) == 1;
  if (one_take) {
    if (moved == expected) return false;
  } else {
    for (int k = 1; k <= length; ++k)
      if (moved == python_mod(k * plague, length)) return false;
  }
  if (!out) return true;
  std::string wanted = one_take ? "the token " + to_string(expected) + " spaces on"
                                : "the token a whole number (>= 1) of " + to_string(plague) + " spaces on";
  out->push_back({PLAGUE_TIME, "seat " + to_string(seat) + " " + after_text, wanted, to_string(moved) + " spaces on"});
  return true;
}

// _trigger_final_violations (END-02): the seat that triggered the end in its own turn is
// given no final action (games of several players only)
bool trigger_final(const State& before, const State& after, const std::string& after_text, Out* out) {
  if (before.carla || before.turn == NONE || after.end_triggered_by != before.turn) return false;
  const int seat = before.turn;
  static const std::vector<int> no_turns;
  const std::vector<int>& final = after.final_turns ? *after.final_turns : no_turns;
  const int acting = after.pending.kind == CHOOSE_TURN ? after.pending.seat : NONE;
  if (!contains(final, seat) && acting != seat) return false;
  if (!out) return true;
  std::string order = acting != NONE ? "next " + to_string(acting) + ", then " + int_list(final) : int_list(final);
  out->push_back({TRIGGER_NO_FINAL, "seat " + to_string(seat) + " " + after_text, "no final action for the trigger",
                  order});
  return true;
}

bool transition_pass(const Tables& t, const State& before, int id, const State& after, int plant, Out* out) {
  // "after {text!r}", written only on the second pass
  const std::string after_text = out ? "after " + repr(t.texts[id]) : std::string();
  bool found = false;
  // before.rules != after.rules: natively the rules are one per run (one Tables, the
  // readings of the run's roots; the explorer clears every state's rules text, so there the
  // texts are equal and the player counts decide); a state loaded from the reference keeps
  // its "rules" object as the reference writes it (edition, fingerprint, readings, the data
  // of a user's edition), so two such states of different rules differ here too
  if (before.players.size() != after.players.size() || before.rules_json != after.rules_json) {
    if (out) out->push_back({SAME_GAME, after_text, "the same rules and players", "a different game"});
    return true;
  }
  if (after.round < before.round) {
    if (!out) return true;
    out->push_back({ROUND, after_text, ">= " + to_string(before.round), to_string(after.round)});
    found = true;
  }
  const Decoded& action = t.decoded[id];
  if (action.verb == V_TAKE && action.b == PLAGUE) {  // isinstance(action, TakeCube), its cube the plague
    if (plague_time(t, before, after, after_text, out)) {
      if (!out) return true;
      found = true;
    }
  }
  if (!before.final_turns && after.final_turns) {
    if (trigger_final(before, after, after_text, out)) {
      if (!out) return true;
      found = true;
    }
  }
  for (size_t seat = 0; seat < before.players.size(); ++seat) {
    const Player& p = before.players[seat];
    const Player& q = after.players[seat];
    auto where = [&] { return "seat " + to_string(seat) + " " + after_text; };
    if (plant != PLANT_SKIP_PRESTIGE && q.prestige < p.prestige) {
      if (!out) return true;
      out->push_back({PRESTIGE, where(), ">= " + to_string(p.prestige), to_string(q.prestige)});
      found = true;
    }
    // q.customers[:len(p.customers)] != p.customers
    const auto& served = p.customers;
    if (q.customers.size() < served.size() || !std::equal(served.begin(), served.end(), q.customers.begin())) {
      if (!out) return true;
      out->push_back({CUSTOMERS_KEPT, where(), ints(p.customers) + " kept", ints(q.customers)});
      found = true;
    }
    // p.markers != q.markers and not set(p.markers) <= set(q.markers)
    if (p.markers != q.markers) {
      bool kept = std::all_of(p.markers.begin(), p.markers.end(), [&](const std::string& city) {
        return std::find(q.markers.begin(), q.markers.end(), city) != q.markers.end();
      });
      if (!kept) {
        if (!out) return true;
        out->push_back({MARKERS_KEPT, where(), strs(p.markers) + " kept", strs(q.markers)});
        found = true;
      }
    }
    const size_t n = std::min(p.members.size(), q.members.size());  // zip(strict=False)
    for (size_t i = 0; i < n; ++i) {
      const int a = p.members[i], b = q.members[i];
      if (a == b) continue;  // one id per location text
      if (dead(t, a)) {
        if (!out) return true;
        out->push_back({DEAD_STAY_DEAD, "seat " + to_string(seat) + " member " + to_string(i) + " " + after_text,
                        t.locations[a], t.locations[b]});  // format_location: the interned text
        found = true;
      } else if (t.places[b] == P_UNBORN) {
        if (!out) return true;
        out->push_back({NEVER_UNBORN, "seat " + to_string(seat) + " member " + to_string(i) + " " + after_text,
                        "born (" + t.locations[a] + ")", "unborn"});
        found = true;
      }
    }
  }
  return found;
}

}  // namespace

int plant_of(const std::string& name) {
  if (name.empty()) return PLANT_NONE;
  if (name == "skip conservation.coins") return PLANT_SKIP_COINS;
  if (name == "skip transition.prestige") return PLANT_SKIP_PRESTIGE;
  throw std::invalid_argument("unknown planted bug '" + name +
                              "' (known: 'skip conservation.coins', 'skip transition.prestige')");
}

std::vector<Violation> state_violations(const Tables& t, const State& s, const Core& core, int plant) {
  Out out;
  cubes(t, s, out);
  if (plant != PLANT_SKIP_COINS) coins(t, s, out);
  grain(t, s, out);
  goods(t, s, out);
  customers(t, s, out);
  monks(t, s, out);
  markers(t, s, out);
  members(t, s, out);
  grain_capacity(t, s, out);
  non_negative(s, out);
  lifetime(t, s, out);
  seats(t, s, out);
  board(t, s, out);
  well(t, s, core, out);
  chance(t, s, core, out);
  phase(s, out);
  carla(t, s, out);
  return out;
}

std::vector<Violation> transition_violations(const Tables& t, const State& before, int action_id, const State& after,
                                             int plant) {
  if (!(0 <= action_id && action_id < static_cast<int>(t.texts.size())))
    throw std::invalid_argument("action id " + to_string(action_id) + " is out of range 0.." +
                                to_string(static_cast<int>(t.texts.size()) - 1));
  Out out;  // empty: no allocation on a sound step
  if (transition_pass(t, before, action_id, after, plant, nullptr))
    transition_pass(t, before, action_id, after, plant, &out);  // again, with the action named
  return out;
}

}  // namespace village::checks
