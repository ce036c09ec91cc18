// The solo mode of the native core (solo.hpp): engine/carla.py and engine/solo_mass.py read
// line for line, with the solo data of the edition (data/solo_data.py) handed over once as
// tables. Every function names the reference function it reads.

#include "solo.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace py = pybind11;

namespace village::solo {

namespace {

template <size_t N>
int index_in(const std::array<const char*, N>& names, const std::string& text, const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i]) return static_cast<int>(i);
  throw std::invalid_argument(std::string("unknown ") + what + " '" + text + "'");
}

int opt_enum_space(const py::handle& h) {
  return h.is_none() ? NONE : index_in(SPACE_NAMES, h.cast<std::string>(), "action space");
}
int opt_enum_cube(const py::handle& h) {
  return h.is_none() ? NONE : index_in(CUBE_NAMES, h.cast<std::string>(), "cube colour");
}

std::string name_or_null(int value, const char* const* names) {
  return value == NONE ? "null" : std::string("\"") + names[value] + "\"";
}

const SoloTables& data(const Tables& t) {
  if (!t.solo.present) throw NotSupportedError("this edition data has no solo mode (SOLO-01)");
  return t.solo;
}

CarlaBoard& board(State& s) {
  if (!s.carla) throw IllegalIdError("Carla's board: not a solo game");
  return *s.carla;
}

bool board_is_empty(const State& s) {
  for (const auto& row : s.spaces)
    for (int n : row)
      if (n) return false;
  return true;
}

int cube_total(const std::array<int, N_CUBES>& cubes) { return std::accumulate(cubes.begin(), cubes.end(), 0); }

// carla.face_down: how many of each tile of `slot`'s set are still face down, in the order
// of the set's tiles (a dict filled in that order), those left out at 0
std::vector<std::pair<int, int>> face_down(const State& s, const SoloTables& solo, int slot) {
  int set = solo.fate_slots.at(slot).first;
  std::vector<std::pair<int, int>> counts;
  for (int tile : solo.fate_sets.at(set)) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == tile; });
    if (it == counts.end())
      counts.emplace_back(tile, 1);
    else
      it->second += 1;
  }
  for (size_t other = 0; other < solo.fate_slots.size(); ++other) {
    int shown = s.carla->fate.at(other);
    if (solo.fate_slots[other].first == set && shown != NONE)
      for (auto& c : counts)
        if (c.first == shown) c.second -= 1;
  }
  std::vector<std::pair<int, int>> out;
  for (const auto& c : counts)
    if (c.second > 0) out.push_back(c);
  return out;
}

// carla.clockwise_from: `space` and then the action spaces clockwise on Carla's board
std::vector<int> clockwise_from(const SoloTables& solo, int space) {
  const auto& order = solo.space_order;
  auto at = std::find(order.begin(), order.end(), space);
  if (at == order.end()) throw IllegalIdError("an action space not on Carla's board");
  size_t i = static_cast<size_t>(at - order.begin());
  std::vector<int> out;
  for (size_t k = 0; k < order.size(); ++k) out.push_back(order[(i + k) % order.size()]);
  return out;
}

// carla.take_target: (space, colour), (space, NONE) for the player's choice, or false: an empty board
bool take_target(const State& s, const SoloTables& solo, int& space, int& colour) {
  const CarlaBoard& carla = *s.carla;
  if (carla.look_for == NONE || carla.look_from == NONE) throw IllegalIdError("Carla looks for no cube");
  auto spaces = clockwise_from(solo, carla.look_from);
  for (int sp : spaces) {
    if (s.spaces[sp][carla.look_for]) {  // SOLO-10 / SOLO-11
      space = sp;
      colour = carla.look_for;
      return true;
    }
  }
  for (int sp : spaces) {  // SOLO-12 / SOLO-13
    const auto& cubes = s.spaces[sp];
    if (cube_total(cubes)) {
      int colours = 0, only = NONE;
      for (int c : CUBES_SORTED)
        if (cubes[c]) {
          colours += 1;
          only = c;
        }
      space = sp;
      colour = colours == 1 ? only : NONE;
      return true;
    }
  }
  return false;
}

// carla._move
void move(State& s, size_t index, int to) { s.players.at(CARLA).members.at(index) = to; }

// carla._take (SOLO-08, SOLO-09, SOLO-14 with AMB-37): her cube to her board's next space; a
// fate tile passed face down is turned up (chance), one face up shows again (AMB-37 a)
Step take(State& s, const Tables& t, int space, int cube, Events* ev) {
  const SoloTables& solo = data(t);
  CarlaBoard& carla = board(s);
  fire(ev, "SOLO-08", s);
  s.spaces.at(space)[cube] -= 1;
  if (s.turn != NONE && s.final_turns.has_value() && board_is_empty(s))
    s.turn_took_last_cube = true;  // AMB-45: her owed take emptied the board in the player's final action
  s.players.at(CARLA).cubes[cube] += 1;
  int placed = (carla.space + 1) % solo.track_spaces;
  if (placed == 0 && carla.space != -1) fire(ev, "SOLO-09", s);  // round the board again
  carla.space = placed;
  carla.last_cube = cube;
  carla.look_for = NONE;
  carla.look_from = NONE;
  carla.took_from = space;
  carla.reacted = false;
  for (size_t slot = 0; slot < solo.fate_slots.size(); ++slot) {
    if (solo.fate_slots[slot].second != placed) continue;
    int shown = carla.fate.at(slot);
    if (shown == NONE) {
      Step reveal;
      reveal.has = true;
      reveal.p.kind = FATE_REVEAL;
      reveal.p.slot = static_cast<int>(slot);
      return reveal;
    }
    if (s.amb37 == 'b') return {};  // a tile counts only when turned up
    fire(ev, "SOLO-14", s);          // a face-up tile passed again shows what it shows (AMB-37 a)
    carla.quill = shown == FATE_QUILL;
    return {};
  }
  return {};
}

// solo_mass / carla.death_candidate (SOLO-22..24): beside her board the lowest number; then
// on the church (her reserve); then on the church track, from left to right; or NONE
int death_candidate(const State& s, const Tables& t) {
  const auto& members = s.players.at(CARLA).members;
  for (int place : {t.farmyard, t.solo.church_reserve}) {
    int best = NONE;
    std::pair<int, size_t> key{0, 0};
    for (size_t i = 0; i < members.size(); ++i) {
      if (members[i] != place) continue;
      std::pair<int, size_t> here{t.family_numbers.at(i), i};
      if (best == NONE || here < key) {
        key = here;
        best = static_cast<int>(i);
      }
    }
    if (best != NONE) return best;
  }
  int best = NONE;
  std::pair<int, size_t> key{0, 0};
  for (size_t i = 0; i < members.size(); ++i) {
    if (t.places[members[i]] != P_CHURCH) continue;
    std::pair<int, size_t> here{t.stages[members[i]], i};
    if (best == NONE || here < key) {
      key = here;
      best = static_cast<int>(i);
    }
  }
  return best;
}

// carla.carla_dies (SOLO-14, SOLO-19, SOLO-22..24; DEATH-03/04, END-05 with AMB-10)
void carla_dies(State& s, const Tables& t, const Core& core, int space, Events* ev) {
  int index = death_candidate(s, t);
  if (index == NONE) {
    fire(ev, "SOLO-22", s);  // no member of hers can die
    return;
  }
  int before = s.players.at(CARLA).members.at(static_cast<size_t>(index));
  if (before == t.solo.church_reserve)
    fire(ev, "SOLO-23", s);  // no "1" or "2" left next to her board
  else if (t.places[before] == P_CHURCH)
    fire(ev, "SOLO-24", s);  // none left on the church either: the church track
  else
    fire(ev, "SOLO-22", s);
  int category = t.solo.death_place.at(space);
  int dest;
  if (s.end_triggered_by != NONE && s.amb10 == 'b') {
    fire(ev, "END-05", s);
    dest = t.removed;
  } else if (category >= 0 && core.solo_chronicle_free(s, category) > 0) {
    fire(ev, "DEATH-03", s);
    dest = t.chronicle_location.at(category);
  } else if (core.solo_graveyard_free(s) > 0) {
    fire(ev, category < 0 ? "SOLO-19" : "DEATH-04", s);
    dest = t.graveyard;
  } else {
    fire(ev, "END-05", s);
    dest = t.removed;
  }
  move(s, static_cast<size_t>(index), dest);
  core.solo_note_last_space(s, CARLA, dest);
}

// carla.take_frontmost (AMB-39 b): the frontmost available customer, no market day
void take_frontmost(State& s, Events* ev) {
  for (int& tile : s.market_available) {
    if (tile == NONE) continue;
    fire(ev, "SOLO-18", s);
    s.players.at(CARLA).customers.push_back(tile);
    tile = NONE;
    return;
  }
}

// carla.react (SOLO-15, SOLO-16, SOLO-20, SOLO-21): from the market a market day (AMB-39 a) or
// the frontmost customer (b); from the church her lowest reserve member into the bag
void react(State& s, const Tables& t, const Core& core, int space, Events* ev) {
  fire(ev, "SOLO-15", s);
  if (space == MARKET) {
    fire(ev, "SOLO-16", s);  // Carla holds a market day and serves the frontmost customer
    if (s.amb39 == 'b') {
      take_frontmost(s, ev);
      return;
    }
    core.solo_market_start(s, CARLA);
    return;
  }
  if (space == CHURCH) {
    const auto& members = s.players.at(CARLA).members;
    int best = NONE;
    std::pair<int, size_t> key{0, 0};
    for (size_t i = 0; i < members.size(); ++i) {
      if (members[i] != t.solo.church_reserve) continue;
      std::pair<int, size_t> here{t.family_numbers.at(i), i};
      if (best == NONE || here < key) {
        key = here;
        best = static_cast<int>(i);
      }
    }
    if (best == NONE) {
      fire(ev, "SOLO-21", s);  // none left on the church: she forgoes the reaction
      return;
    }
    fire(ev, "SOLO-20", s);
    move(s, static_cast<size_t>(best), t.black_bag);
  }
}

}  // namespace

// --- loading and writing ---------------------------------------------------------------------

void load(const py::dict& c, State& s, const Tables& t) {
  const SoloTables& solo = data(t);
  CarlaBoard b;
  b.space = c["space"].cast<int>();
  b.last_cube = opt_enum_cube(c["last_cube"]);
  for (auto x : c["fate"].cast<py::list>())
    b.fate.push_back(x.is_none() ? NONE : index_in(FATE_NAMES, x.cast<std::string>(), "fate tile"));
  if (b.fate.size() != solo.fate_slots.size()) throw std::invalid_argument("Carla's board: one fate entry per slot");
  b.look_for = opt_enum_cube(c["look_for"]);
  b.look_from = opt_enum_space(c["look_from"]);
  b.took_from = opt_enum_space(c["took_from"]);
  b.reacted = c["reacted"].cast<bool>();
  b.quill = c["quill"].cast<bool>();
  b.well_turn = c.contains("well_turn") && c["well_turn"].cast<bool>();
  b.end_in_market_of = c.contains("end_in_market_of") && !c["end_in_market_of"].is_none()
                           ? c["end_in_market_of"].cast<int>()
                           : NONE;
  b.action_waits = c.contains("action_waits") ? opt_enum_space(c["action_waits"]) : NONE;
  s.carla = std::move(b);
}

// serialization._carla_json, its keys sorted; well_turn, end_in_market_of and action_waits
// only when set
std::string to_json(const CarlaBoard& c) {
  std::string out = "{";
  if (c.action_waits != NONE) out += "\"action_waits\":" + name_or_null(c.action_waits, SPACE_NAMES.data()) + ",";
  if (c.end_in_market_of != NONE) out += "\"end_in_market_of\":" + std::to_string(c.end_in_market_of) + ",";
  out += "\"fate\":[";
  for (size_t i = 0; i < c.fate.size(); ++i) out += (i ? "," : "") + name_or_null(c.fate[i], FATE_NAMES.data());
  out += "],\"last_cube\":" + name_or_null(c.last_cube, CUBE_NAMES.data());
  out += ",\"look_for\":" + name_or_null(c.look_for, CUBE_NAMES.data());
  out += ",\"look_from\":" + name_or_null(c.look_from, SPACE_NAMES.data());
  out += std::string(",\"quill\":") + (c.quill ? "true" : "false");
  out += std::string(",\"reacted\":") + (c.reacted ? "true" : "false");
  out += ",\"space\":" + std::to_string(c.space);
  out += ",\"took_from\":" + name_or_null(c.took_from, SPACE_NAMES.data());
  if (c.well_turn) out += ",\"well_turn\":true";
  return out + "}";
}

// --- chance, legal actions, apply ----------------------------------------------------------

// carla.fate_outcomes (SOLO-14): the tiles of the slot's set still face down, each equally
// likely (proportional: count / total, reduced)
std::vector<std::tuple<int, long long, long long>> fate_outcomes(const State& s, const Tables& t) {
  const SoloTables& solo = data(t);
  if (!s.carla) throw IllegalIdError("a FateReveal outside a solo game");
  auto counts = face_down(s, solo, s.pending.slot);
  long long total = 0;
  for (const auto& c : counts) total += c.second;
  std::vector<std::tuple<int, long long, long long>> out;
  for (const auto& [tile, n] : counts) {
    long long g = std::gcd(static_cast<long long>(n), total);
    out.emplace_back(solo.reveal.at(tile), n / g, total / g);
  }
  return out;
}

// core._generate at ChooseCarlaCube: carla.choice_colours, in the Cube enum's order
std::vector<int> choice_ids(const State& s, const Tables& t) {
  const SoloTables& solo = data(t);
  std::vector<int> out;
  for (int c = 0; c < N_CUBES; ++c)
    if (s.spaces.at(s.pending.space)[c]) out.push_back(solo.carla_cube[c]);
  return out;
}

// carla.reveal (SOLO-14; AMB-37 c: a set all face up is shuffled face down again)
void reveal(State& s, const Tables& t, int id, Events* ev) {
  const SoloTables& solo = data(t);
  const Decoded& a = t.decoded.at(id);
  if (a.verb != V_REVEAL_FATE) throw IllegalIdError("not a fate tile turned up");
  fire(ev, "SOLO-14", s);
  CarlaBoard& carla = board(s);
  int slot = s.pending.slot;
  carla.fate.at(slot) = a.a;
  if (s.amb37 == 'c') {  // carla.reshuffled
    int set = solo.fate_slots.at(slot).first;
    bool all_up = true;
    for (size_t i = 0; i < solo.fate_slots.size(); ++i)
      if (solo.fate_slots[i].first == set && carla.fate[i] == NONE) all_up = false;
    if (all_up)
      for (size_t i = 0; i < solo.fate_slots.size(); ++i)
        if (solo.fate_slots[i].first == set) carla.fate[i] = NONE;
  }
  carla.quill = a.a == FATE_QUILL;
}

// carla.take_chosen (SOLO-12 / SOLO-13): the player's choice of Carla's cube
Step take_chosen(State& s, const Tables& t, int id, Events* ev) {
  const Decoded& a = t.decoded.at(id);
  if (a.verb != V_CARLA_CUBE) throw IllegalIdError("not a cube chosen for Carla");
  fire(ev, s.pending.space == board(s).look_from ? "SOLO-12" : "SOLO-13", s);
  return take(s, t, s.pending.space, a.a, ev);
}

// carla.owe_take (SOLO-10): after the player's cube Carla's take is owed
void owe_take(State& s, int space, int cube, Events* ev) {
  fire(ev, "SOLO-10", s);
  CarlaBoard& carla = board(s);
  carla.look_for = cube;
  carla.look_from = space;
}

// carla.after_well (SOLO-25)
void after_well(State& s, Events* ev) {
  fire(ev, "SOLO-25", s);
  board(s).well_turn = true;
}

// carla.next_step: her take, then her reaction, then a death for a quill passed (AMB-38 b:
// the death first); the well's turn (SOLO-25); AMB-41 b: her take dropped once the player's
// action ended the game. nullopt: no step of hers is owed.
std::optional<Step> next_step(State& s, const Tables& t, const Core& core, Events* ev) {
  const SoloTables& solo = data(t);
  CarlaBoard& carla = board(s);
  if (carla.well_turn) {
    carla.well_turn = false;
    return Step{};
  }
  if (carla.look_for != NONE) {
    bool ended_by_player = s.end_triggered_by == PLAYER && !s.final_turns.has_value();
    if (ended_by_player && s.amb41 == 'b') {
      fire(ev, "SOLO-28", s);
      carla.look_for = NONE;
      carla.look_from = NONE;
      return Step{};
    }
    int space = NONE, colour = NONE;
    if (!take_target(s, solo, space, colour)) {  // the board is empty: nothing to take
      carla.look_for = NONE;
      carla.look_from = NONE;
      return Step{};
    }
    if (colour == NONE) {
      Step ask;
      ask.has = true;
      ask.p.kind = CHOOSE_CARLA_CUBE;
      ask.p.seat = PLAYER;
      ask.p.space = space;
      return ask;
    }
    bool same_space = space == carla.look_from;
    if (colour == carla.look_for)  // the colour she looks for
      fire(ev, same_space ? "SOLO-10" : "SOLO-11", s);
    else  // the player's choice, forced: the space holds one colour only
      fire(ev, same_space ? "SOLO-12" : "SOLO-13", s);
    return take(s, t, space, colour, ev);
  }
  if (carla.took_from == NONE) return std::nullopt;
  int from = carla.took_from;
  if (carla.quill && !carla.reacted && s.amb38 == 'b') {
    carla_dies(s, t, core, from, ev);
    board(s).quill = false;
    return Step{};
  }
  if (!carla.reacted) {
    carla.reacted = true;
    react(s, t, core, from, ev);
    return Step{};
  }
  if (carla.quill) carla_dies(s, t, core, from, ev);
  CarlaBoard& after = board(s);
  after.took_from = NONE;
  after.reacted = false;
  after.quill = false;
  return Step{};
}

// carla.market_turn (SOLO-16..18, SOLO-25 / SOLO-31 under AMB-43): at her chance Carla serves
// the frontmost available customer for nothing and is done for the day
void market_turn(State& s, Events* ev) {
  MarketDay& day = *s.market_day;
  int* front = nullptr;
  for (int& tile : s.market_available)
    if (tile != NONE) {
      front = &tile;
      break;
    }
  if (board(s).well_turn) {
    if (s.amb43 == 'a') {
      fire(ev, "SOLO-25", s);  // a market day through the well: Carla does not react
      front = nullptr;
    } else if (front) {
      fire(ev, "SOLO-31", s);  // AMB-43 b: her customer is no reaction to a cube of hers
    }
  }
  if (front) {
    fire(ev, day.trigger == PLAYER ? "SOLO-17" : "SOLO-16", s);
    fire(ev, "SOLO-18", s);
    s.players.at(CARLA).customers.push_back(*front);
    *front = NONE;
  }
  if (std::find(day.passed.begin(), day.passed.end(), CARLA) == day.passed.end()) day.passed.push_back(CARLA);
  std::sort(day.passed.begin(), day.passed.end());
  bool player_passed = std::find(day.passed.begin(), day.passed.end(), PLAYER) != day.passed.end();
  day.current = player_passed ? CARLA : PLAYER;
  day.trigger_sold = day.trigger_sold || (day.trigger == CARLA && front != nullptr);
}

// solo_mass.entry_stage (SOLO-27): stage 1 for the player; for Carla the first stage with
// none of her members on it (NONE: every stage has one, the member stays in the bag)
int entry_stage(const State& s, const Tables& t, int seat, Events* ev) {
  if (!is_carla(s, seat)) return 1;
  fire(ev, "SOLO-27", s);
  std::vector<bool> taken(static_cast<size_t>(t.church_stages) + 1, false);
  for (int m : s.players.at(CARLA).members)
    if (t.places[m] == P_CHURCH && t.stages[m] <= t.church_stages) taken[static_cast<size_t>(t.stages[m])] = true;
  for (int stage = 1; stage <= t.church_stages; ++stage)
    if (!taken[static_cast<size_t>(stage)]) return stage;
  return NONE;
}

// carla.new_round (SOLO-26): all but the last cube on her board go back to the supply
void new_round(State& s, Events* ev) {
  CarlaBoard& carla = board(s);
  Player& p = s.players.at(CARLA);
  auto back = p.cubes;
  if (carla.last_cube != NONE && back[carla.last_cube]) back[carla.last_cube] -= 1;
  if (cube_total(back) == 0) return;
  fire(ev, "SOLO-26", s);
  for (int c = 0; c < N_CUBES; ++c) {
    p.cubes[c] -= back[c];
    s.supply_cubes[c] += back[c];
  }
}

// end_of_game.market_player: the seat that held the market day the end came in, else the
// seat that triggered the end
int market_player(const State& s, int turn_seat) {
  if (!s.carla) return turn_seat;
  if (s.carla->end_in_market_of != NONE) return s.carla->end_in_market_of;
  if (s.end_triggered_by == NONE) throw IllegalIdError("the end is not triggered");
  return s.end_triggered_by;
}

// carla.final_seats (SOLO-28): Carla takes no final action
void final_seats(const State& s, std::vector<int>& order, Events* ev) {
  fire(ev, "SOLO-28", s);
  order.erase(std::remove(order.begin(), order.end(), CARLA), order.end());
}

// --- the tables ---------------------------------------------------------------------------

namespace {

// The solo section of an edition data (data/solo_data.py SoloData), added to its tables.
void set_solo_tables(const std::shared_ptr<Tables>& tables, const std::vector<std::string>& space_order,
                     int track_spaces, const std::vector<std::pair<std::string, int>>& fate_slots,
                     const std::vector<std::pair<std::string, std::vector<std::string>>>& fate_sets,
                     const std::map<std::string, std::string>& death_places) {
  Tables& t = *tables;
  SoloTables solo;
  solo.present = true;
  for (const auto& name : space_order) solo.space_order.push_back(index_in(SPACE_NAMES, name, "action space"));
  if (track_spaces < 1) throw std::invalid_argument("Carla's board needs a cube space");
  solo.track_spaces = track_spaces;
  std::map<std::string, int> set_index;
  for (const auto& [name, tiles] : fate_sets) {
    set_index.emplace(name, static_cast<int>(solo.fate_sets.size()));
    solo.fate_set_names.push_back(name);
    std::vector<int> row;
    for (const auto& tile : tiles) row.push_back(index_in(FATE_NAMES, tile, "fate tile"));
    solo.fate_sets.push_back(std::move(row));
  }
  for (const auto& [name, space] : fate_slots) {
    auto it = set_index.find(name);
    if (it == set_index.end()) throw std::invalid_argument("a fate slot names an unknown tile set '" + name + "'");
    solo.fate_slots.emplace_back(it->second, space);
  }
  for (int sp = 0; sp < N_SPACES; ++sp) {
    auto it = death_places.find(SPACE_NAMES[sp]);
    if (it == death_places.end()) throw std::invalid_argument(std::string("no death place for ") + SPACE_NAMES[sp]);
    solo.death_place[sp] = it->second == "graveyard" ? -1 : index_in(CATEGORY_NAMES, it->second, "category");
  }
  solo.carla_cube.fill(-1);
  solo.reveal.fill(-1);
  for (size_t i = 0; i < t.texts.size(); ++i) {
    const std::string& text = t.texts[i];
    int id = static_cast<int>(i);
    if (text.rfind("carla-cube ", 0) == 0) {
      int c = index_in(CUBE_NAMES, text.substr(11), "cube colour");
      solo.carla_cube[c] = id;
      t.decoded[i] = Decoded{V_CARLA_CUBE, c, 0};
    } else if (text.rfind("reveal-fate ", 0) == 0) {
      int tile = index_in(FATE_NAMES, text.substr(12), "fate tile");
      solo.reveal[tile] = id;
      t.decoded[i] = Decoded{V_REVEAL_FATE, tile, 0};
    }
  }
  for (int id : solo.carla_cube)
    if (id < 0) throw std::invalid_argument("the action universe has no carla-cube action for every colour");
  for (int id : solo.reveal)
    if (id < 0) throw std::invalid_argument("the action universe has no reveal-fate action for every tile");
  solo.church_reserve = t.location("church-reserve");
  t.solo = std::move(solo);
}

}  // namespace

void bind(py::module_& m) {
  m.def("set_solo_tables", &set_solo_tables, py::arg("tables"), py::arg("space_order"), py::arg("track_spaces"),
        py::arg("fate_slots"), py::arg("fate_sets"), py::arg("death_places"),
        "Add an edition's solo data (data/solo_data.py SoloData) to its native tables.");
}

}  // namespace village::solo
