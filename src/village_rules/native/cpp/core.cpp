// The native core of village-rules (issue 39; docs/native.md): the reference's game state,
// read from and written as its canonical JSON, and the steps ported so far, each a line for
// line reading of the Python module named beside it. A step that is not ported raises
// NotSupportedError (the Python wrapper falls back to the reference there); it never guesses.
//
// The tie: tests/native/ compare every answer of this core with the reference's on every
// state of seeded games, the golden games and the stored witnesses.

#include <pybind11/pybind11.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "checks.hpp"
#include "events.hpp"
#include "explore.hpp"
#include "monitors.hpp"
#include "observation.hpp"
#include "predicates.hpp"
#include "solo.hpp"
#include "state.hpp"

namespace py = pybind11;
using namespace village;

namespace {

// --- small helpers --------------------------------------------------------------------

template <size_t N>
int index_of(const std::array<const char*, N>& names, const std::string& text, const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i]) return static_cast<int>(i);
  throw std::invalid_argument(std::string("unknown ") + what + " '" + text + "'");
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// --- JSON text as Python's json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False) writes it -------------------------------------------------------------

std::string jstr(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string jint(int n) { return n == NONE ? "null" : std::to_string(n); }
std::string jbool(bool b) { return b ? "true" : "false"; }

std::string jints(const std::vector<int>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? "," : "") + jint(xs[i]);
  return out + "]";
}

// An object whose members are written with their keys sorted (sort_keys=True).
struct Obj {
  std::vector<std::pair<std::string, std::string>> members;
  Obj& add(const std::string& key, std::string raw) {
    members.emplace_back(key, std::move(raw));
    return *this;
  }
  std::string str() {
    std::sort(members.begin(), members.end());
    std::string out = "{";
    for (size_t i = 0; i < members.size(); ++i)
      out += (i ? "," : "") + jstr(members[i].first) + ":" + members[i].second;
    return out + "}";
  }
};

template <size_t N>
std::string jtally(const std::array<int, N>& counts, const std::array<int, N>& sorted,
                   const std::array<const char*, N>& names) {
  std::string out = "{";
  bool first = true;
  for (int k : sorted) {
    if (!counts[k]) continue;
    out += (first ? "" : ",") + jstr(names[k]) + ":" + std::to_string(counts[k]);
    first = false;
  }
  return out + "}";
}

// --- reading a state from the JSON object (json.loads of the reference's to_json) -------

int as_int(const py::handle& h) { return h.is_none() ? NONE : h.cast<int>(); }

std::vector<int> int_list(const py::handle& h) {
  std::vector<int> out;
  for (auto x : h.cast<py::list>()) out.push_back(as_int(x));
  return out;
}

template <size_t N>
std::array<int, N> tally_of(const py::handle& h, const std::array<const char*, N>& names, const char* what) {
  std::array<int, N> out{};
  for (auto item : h.cast<py::dict>())
    out[index_of(names, item.first.cast<std::string>(), what)] = item.second.cast<int>();
  return out;
}

Pending pending_of(const py::dict& d) {
  Pending p;
  p.kind = index_of(KIND_NAMES, d["kind"].cast<std::string>(), "pending step");
  if (d.contains("seat")) p.seat = d["seat"].cast<int>();
  if (d.contains("space")) p.space = index_of(SPACE_NAMES, d["space"].cast<std::string>(), "action space");
  if (d.contains("remaining")) p.remaining = d["remaining"].cast<int>();
  if (d.contains("position")) p.position = d["position"].cast<int>();
  if (d.contains("max_stage")) p.max_stage = d["max_stage"].cast<int>();
  if (d.contains("slot")) p.slot = d["slot"].cast<int>();
  if (d.contains("action")) p.action = d["action"].cast<std::string>();
  return p;
}

std::string pending_json(const Pending& p) {
  Obj o;
  o.add("kind", jstr(KIND_NAMES[p.kind]));
  if (p.seat != NONE) o.add("seat", jint(p.seat));
  if (p.space != NONE) o.add("space", jstr(SPACE_NAMES[p.space]));
  if (p.remaining != NONE) o.add("remaining", jint(p.remaining));
  if (p.position != NONE) o.add("position", jint(p.position));
  if (p.max_stage != NONE) o.add("max_stage", jint(p.max_stage));
  if (p.slot != NONE) o.add("slot", jint(p.slot));
  if (p.kind == CHOOSE_PAYMENT) o.add("action", jstr(p.action));
  return o.str();
}

bool is_chance_kind(int kind) {
  return kind == SEED_DRAW || kind == REFILL_DRAW || kind == MASS_DRAW || kind == FATE_REVEAL;
}

}  // namespace

// --- the game ---------------------------------------------------------------------------

class Game : public solo::Core, public village::explore::Core, public village::checks::Core,
             public village::predicates::Core {
 public:
  explicit Game(std::shared_ptr<Tables> tables) : t_(std::move(tables)) {}

  // The state as json.loads gives it from the reference's to_json; `rules_json` is the
  // reference's own text of the "rules" member (kept as it is: it holds the data's identity).
  void load(const py::dict& d, const std::string& rules_json, const std::map<std::string, std::string>& readings) {
    State s;
    s.rules_json = rules_json;
    auto letter = [&](const char* amb) {
      auto it = readings.find(amb);
      if (it == readings.end() || it->second.empty()) throw std::invalid_argument(std::string("no reading for ") + amb);
      return it->second[0];
    };
    s.amb01 = letter("AMB-01");
    s.amb02 = letter("AMB-02");
    s.amb03 = letter("AMB-03");
    s.amb06 = letter("AMB-06");
    s.amb08 = letter("AMB-08");
    s.amb09 = letter("AMB-09");
    s.amb10 = letter("AMB-10");
    s.amb12 = letter("AMB-12");
    s.amb15 = letter("AMB-15");
    s.amb16 = letter("AMB-16");
    s.amb17 = letter("AMB-17");
    s.amb18 = letter("AMB-18");
    s.amb19 = letter("AMB-19");
    s.amb23 = letter("AMB-23");
    s.amb24 = letter("AMB-24");
    s.amb33 = letter("AMB-33");
    s.amb34 = letter("AMB-34");
    s.amb26 = letter("AMB-26");
    s.amb44 = letter("AMB-44");
    s.amb45 = letter("AMB-45");
    s.amb46 = letter("AMB-46");
    s.amb36 = letter("AMB-36");  // the solo readings
    s.amb37 = letter("AMB-37");
    s.amb38 = letter("AMB-38");
    s.amb39 = letter("AMB-39");
    s.amb41 = letter("AMB-41");
    s.amb42 = letter("AMB-42");
    s.amb43 = letter("AMB-43");
    if (d.contains("carla")) solo::load(d["carla"].cast<py::dict>(), s, *t_);  // a solo game
    s.round = d["round"].cast<int>();
    s.start_player = d["start_player"].cast<int>();
    s.next_start_holder = as_int(d["next_start_holder"]);
    py::dict supply = d["supply"];
    s.supply_cubes = tally_of(supply["cubes"], CUBE_NAMES, "cube colour");
    s.supply_coins = supply["coins"].cast<int>();
    s.supply_grain = supply["grain"].cast<int>();
    s.supply_goods = tally_of(supply["goods"], GOOD_NAMES, "good");
    s.green_bag = tally_of(d["green_bag"], CUBE_NAMES, "cube colour");
    py::dict spaces = d["spaces"];
    for (int i = 0; i < N_SPACES; ++i) s.spaces[i] = tally_of(spaces[SPACE_NAMES[i]], CUBE_NAMES, "cube colour");
    s.market_available = int_list(d["market_available"]);
    s.market_waiting = int_list(d["market_waiting"]);
    s.customer_pile = int_list(d["customer_pile"]);
    s.bag_monks = d["bag_monks"].cast<int>();
    s.monks_aside = d["monks_aside"].cast<int>();
    for (auto ph : d["players"].cast<py::list>()) {
      py::dict pd = ph.cast<py::dict>();
      Player p;
      p.colour = pd["colour"].cast<std::string>();
      for (auto m : pd["members"].cast<py::list>()) p.members.push_back(t_->location(m.cast<std::string>()));
      p.grain = pd["grain"].cast<int>();
      p.coins = pd["coins"].cast<int>();
      p.cubes = tally_of(pd["cubes"], CUBE_NAMES, "cube colour");
      p.goods = tally_of(pd["goods"], GOOD_NAMES, "good");
      p.lifetime = pd["lifetime"].cast<int>();
      p.prestige = pd["prestige"].cast<int>();
      p.customers = int_list(pd["customers"]);
      for (auto m : pd["markers"].cast<py::list>()) p.markers.push_back(m.cast<std::string>());
      s.players.push_back(std::move(p));
    }
    if (s.players.size() < 2)
      throw NotSupportedError("a game of fewer than 2 seats is not a game (a solo game has 2: Carla's is seat 1)");
    s.pending = pending_of(d["pending"].cast<py::dict>());
    s.turn = d["turn"].is_none() ? NONE : d["turn"]["seat"].cast<int>();
    if (!d["turn"].is_none()) {
      py::dict t = d["turn"];
      s.turn_took_last_cube = t.contains("took_last_cube") && t["took_last_cube"].cast<bool>();
    }
    if (!d["market_day"].is_none()) {
      py::dict m = d["market_day"];
      MarketDay day;
      day.trigger = m["trigger"].cast<int>();
      day.current = m["current"].cast<int>();
      day.passed = int_list(m["passed"]);
      day.trigger_sold = m["trigger_sold"].cast<bool>();
      day.held_deaths = m["held_deaths"].cast<int>();
      day.closed = m["closed"].cast<bool>();
      day.first_pass_waived = m.contains("first_pass_waived") && m["first_pass_waived"].cast<bool>();
      s.market_day = day;
    }
    if (!d["mass"].is_none()) {
      py::dict m = d["mass"];
      Mass mass;
      mass.bought = m["bought"].cast<int>();
      mass.final = m["final"].cast<bool>();
      if (m.contains("stopped")) mass.stopped = int_list(m["stopped"]);
      mass.in_final_actions = m.contains("in_final_actions") && m["in_final_actions"].cast<bool>();
      s.mass = mass;
    }
    s.deaths_owed = int_list(d["deaths_owed"]);
    s.end_triggered_by = as_int(d["end_triggered_by"]);
    if (!d["final_turns"].is_none()) s.final_turns = int_list(d["final_turns"]);
    if (!t_->cubes_per_space.count(static_cast<int>(s.players.size())))
      throw NotSupportedError("no setup card for " + std::to_string(s.players.size()) + " players in this data");
    s_ = std::move(s);
  }

  std::string to_json() const { return json_of(s_); }

  std::string json_of(const State& s) const {
    Obj o;
    o.add("bag_monks", jint(s.bag_monks));
    if (s.carla) o.add("carla", solo::to_json(*s.carla));
    o.add("customer_pile", jints(s.customer_pile));
    o.add("deaths_owed", jints(s.deaths_owed));
    o.add("end_triggered_by", jint(s.end_triggered_by));
    o.add("final_turns", s.final_turns ? jints(*s.final_turns) : "null");
    o.add("format", jstr("village-rules-state"));
    o.add("format_version", "1");
    o.add("green_bag", jtally(s.green_bag, CUBES_SORTED, CUBE_NAMES));
    o.add("market_available", jints(s.market_available));
    o.add("market_waiting", jints(s.market_waiting));
    if (s.market_day) {
      const MarketDay& m = *s.market_day;
      Obj md;
      md.add("trigger", jint(m.trigger)).add("current", jint(m.current)).add("passed", jints(m.passed));
      md.add("trigger_sold", jbool(m.trigger_sold)).add("held_deaths", jint(m.held_deaths));
      md.add("closed", jbool(m.closed));
      if (m.first_pass_waived) md.add("first_pass_waived", "true");
      o.add("market_day", md.str());
    } else {
      o.add("market_day", "null");
    }
    if (s.mass) {
      Obj m;
      m.add("bought", jint(s.mass->bought)).add("final", jbool(s.mass->final));
      if (s.mass->in_final_actions) m.add("in_final_actions", "true");
      if (!s.mass->stopped.empty()) m.add("stopped", jints(s.mass->stopped));
      o.add("mass", m.str());
    } else {
      o.add("mass", "null");
    }
    o.add("monks_aside", jint(s.monks_aside));
    o.add("next_start_holder", jint(s.next_start_holder));
    o.add("pending", pending_json(s.pending));
    std::string players = "[";
    for (size_t i = 0; i < s.players.size(); ++i) {
      const Player& p = s.players[i];
      Obj po;
      po.add("colour", jstr(p.colour));
      std::string members = "[";
      for (size_t k = 0; k < p.members.size(); ++k)
        members += (k ? "," : "") + jstr(t_->locations[p.members[k]]);
      po.add("members", members + "]");
      po.add("grain", jint(p.grain)).add("coins", jint(p.coins));
      po.add("cubes", jtally(p.cubes, CUBES_SORTED, CUBE_NAMES));
      po.add("goods", jtally(p.goods, GOODS_SORTED, GOOD_NAMES));
      po.add("lifetime", jint(p.lifetime)).add("prestige", jint(p.prestige));
      po.add("customers", jints(p.customers));
      std::string markers = "[";
      for (size_t k = 0; k < p.markers.size(); ++k) markers += (k ? "," : "") + jstr(p.markers[k]);
      po.add("markers", markers + "]");
      players += (i ? "," : "") + po.str();
    }
    o.add("players", players + "]");
    o.add("round", jint(s.round));
    o.add("rules", s.rules_json);
    Obj sp;
    for (int i = 0; i < N_SPACES; ++i) sp.add(SPACE_NAMES[i], jtally(s.spaces[i], CUBES_SORTED, CUBE_NAMES));
    o.add("spaces", sp.str());
    o.add("start_player", jint(s.start_player));
    Obj su;
    su.add("cubes", jtally(s.supply_cubes, CUBES_SORTED, CUBE_NAMES));
    su.add("coins", jint(s.supply_coins)).add("grain", jint(s.supply_grain));
    su.add("goods", jtally(s.supply_goods, GOODS_SORTED, GOOD_NAMES));
    o.add("supply", su.str());
    std::string took = s.turn_took_last_cube ? ",\"took_last_cube\":true" : "";
    o.add("turn", s.turn == NONE ? "null" : "{\"seat\":" + jint(s.turn) + took + "}");
    return o.str();
  }

  // --- who acts (model/state.py) --------------------------------------------------------

  bool is_terminal() const { return s_.pending.kind == GAME_OVER; }
  bool is_chance() const { return is_chance_kind(s_.pending.kind); }
  int current_player() const {
    if (is_terminal()) return -4;  // TERMINAL
    if (is_chance()) return -1;    // CHANCE
    return s_.pending.seat;
  }

  // --- legal actions in the reference's order (engine/core.py _generate) -----------------

  std::vector<int> legal() const {
    std::vector<int> out = legal_of(s_);
    if (debug_swap_ && out.size() >= 2) std::swap(out[0], out[1]);  // a planted difference (tests)
    return out;
  }

  // --- the final scoring (engine/scoring.py: SCORE-01..07, AMB-29) ----------------------

  // score_breakdown's totals (SCORE-01..06): the prestige of play, then the cities reached,
  // the council chamber and the church by stage, the chronicle, the customers and the coins
  std::vector<int> scores() const { return scores_of(s_); }
  std::vector<int> scores_of(const State& s) const {
    if (s.pending.kind != GAME_OVER) throw IllegalIdError("the final scoring is only at the end of the game");
    std::vector<int> out;
    for (const Player& p : s.players) {
      if (s.carla && &p - s.players.data() == solo::CARLA) {  // SOLO-03: Carla scores nothing
        out.push_back(0);
        continue;
      }
      int cities = static_cast<int>(std::min(p.markers.size(), t_->score_travel.size() - 1));
      int council = 0, church = 0, chronicled = 0, customers = 0;
      for (int m : p.members) {
        int place = t_->places[m];
        if (place == P_COUNCIL) council += t_->score_council.at(t_->stages[m] - 1);
        if (place == P_CHURCH) church += t_->score_church.at(t_->stages[m] - 1);
        if (place == P_CHRONICLE) chronicled += 1;
      }
      int chronicle = t_->score_chronicle.at(std::min(chronicled, static_cast<int>(t_->score_chronicle.size()) - 1));
      for (int tile : p.customers) customers += t_->customer_points.at(tile);
      out.push_back(p.prestige + t_->score_travel.at(cities) + council + church + chronicle + customers +
                    p.coins * t_->score_coin);
    }
    return out;
  }

  // scoring.winners: the highest ranking_key (SCORE-07: the total, then the edition's
  // tie-breakers in order); more than one seat only after a full tie (a shared win, AMB-29)
  std::vector<int> winners() const { return winners_of(s_); }
  std::vector<int> winners_of(const State& s) const {
    if (s.carla) return {solo::PLAYER};  // SOLO-30: the player's result is their rank
    std::vector<int> totals = scores_of(s);
    std::vector<std::vector<int>> keys;
    for (size_t seat = 0; seat < s.players.size(); ++seat) {
      const Player& p = s.players[seat];
      std::vector<int> key = {totals[seat]};
      for (int tie : t_->tie_breakers) {
        if (tie == TIE_MOST_GRAIN) key.push_back(p.grain);
        if (tie == TIE_MOST_CUSTOMERS) key.push_back(static_cast<int>(p.customers.size()));
        if (tie == TIE_MOST_LIVING_MEMBERS) {
          int living = 0;
          for (int m : p.members) {
            int place = t_->places[m];
            living += place != P_UNBORN && place != P_CHRONICLE && place != P_GRAVEYARD && place != P_REMOVED;
          }
          key.push_back(living);
        }
      }
      keys.push_back(std::move(key));
    }
    const auto& best = *std::max_element(keys.begin(), keys.end());
    std::vector<int> out;
    for (size_t seat = 0; seat < keys.size(); ++seat)
      if (keys[seat] == best) out.push_back(static_cast<int>(seat));
    return out;
  }

  // --- chance outcomes (engine/core.py _chance_outcomes): (id, numerator, denominator) ----

  std::vector<std::tuple<int, long long, long long>> chance() const { return chance_of(s_); }
  void set_debug_swap(bool on) { debug_swap_ = on; }
  // observation.cpp: the observation tensor of the current state as seat `observer` sees it,
  // the bytes of little-endian float32 (adapters.observation_array's tensor float for float);
  // `plant` (tests): a difference written on purpose
  py::bytes observation(int observer, const std::string& plant) const {
    return py::bytes(village::observation::tensor_bytes(*t_, s_, observer, current_player(),
                                                        village::observation::plant_of(plant)));
  }
  std::pair<long long, long long> playout(unsigned long long seed, long long max_steps);

  // (every member is public: the class is internal to this file; Python sees the bound methods)
  std::vector<std::tuple<int, long long, long long>> chance_of(const State& s) const {
    std::vector<std::tuple<int, long long, long long>> out;
    switch (s.pending.kind) {
      case SEED_DRAW: {  // proportional(state.green_bag.items): the tally's sorted order
        std::vector<std::pair<int, int>> counts;
        for (int c : CUBES_SORTED)
          if (s.green_bag[c]) counts.emplace_back(t_->draw_cube[c], s.green_bag[c]);
        return proportional(counts);
      }
      case REFILL_DRAW: {  // market_day.refill_outcomes: uniform over the pile, in its order
        long long n = static_cast<long long>(s.customer_pile.size());
        for (int tile : s.customer_pile) out.emplace_back(customer_id(tile), 1, n);
        return out;
      }
      case MASS_DRAW: {  // mass.draw_outcomes: the monks, then (seat, number) by first appearance
        std::vector<std::pair<int, int>> counts = {{t_->draw_monk, s.bag_monks}};
        std::vector<int> keys;
        std::unordered_map<int, int> at;
        for (size_t seat = 0; seat < s.players.size(); ++seat) {
          const auto& members = s.players[seat].members;
          for (size_t i = 0; i < members.size(); ++i) {
            if (members[i] != t_->black_bag) continue;
            int key = static_cast<int>(seat) * 100000 + t_->family_numbers.at(i);
            auto it = at.find(key);
            if (it == at.end()) {
              at.emplace(key, static_cast<int>(counts.size()));
              auto id = t_->draw_member.find(key);
              if (id == t_->draw_member.end()) throw IllegalIdError("no action id for a member drawn from the bag");
              counts.emplace_back(id->second, 1);
            } else {
              counts[it->second].second += 1;
            }
          }
        }
        return proportional(counts);
      }
      case FATE_REVEAL:  // carla.fate_outcomes (solo)
        return solo::fate_outcomes(s, *t_);
      default:
        return out;
    }
  }

  // --- apply (engine/core.py apply: perform, then settle) -------------------------------
  // Works on a copy: a step that turns out not to be supported leaves the state unchanged.

  void apply(int id) {
    check_id(id);
    step(id);
  }

  // apply's check: the id is an outcome of the pending chance event, or legal at the decision
  void check_id(int id) const {
    if (id < 0 || id >= t_->n_actions) throw IllegalIdError("action id " + std::to_string(id) + " is out of range");
    const State& s = s_;
    if (is_chance_kind(s.pending.kind)) {
      bool outcome = false;
      for (auto& o : chance_of(s)) outcome = outcome || std::get<0>(o) == id;
      if (!outcome) throw IllegalIdError("action id " + std::to_string(id) + " is not an outcome of the pending chance event");
    } else if (s.pending.kind == GAME_OVER) {
      throw IllegalIdError("the game is over");
    } else {
      require_legal(s, id);
    }
  }

  // --- the rule events of a step (engine/core.py apply_steps; events.hpp) ---------------

  // `apply`, with the step's sub-steps: (action id, forced, events), each event (rule, seat,
  // turn_of, market_player, mass, end_by, round) with None where the reference has None.
  // The same checks and errors as `apply` (the state unchanged on an error).
  py::list apply_steps(int id) {
    check_id(id);
    Events ev;
    step_recorded(id, ev);
    auto opt = [](int v) -> py::object { return v == NONE ? py::object(py::none()) : py::object(py::int_(v)); };
    py::list out;
    for (size_t k = 0; k < ev.steps.size(); ++k) {
      size_t end = k + 1 < ev.steps.size() ? ev.steps[k + 1].first : ev.events.size();
      py::list events;
      for (size_t e = ev.steps[k].first; e < end; ++e) {
        const Event& x = ev.events[e];
        events.append(py::make_tuple(py::str(x.rule), opt(x.seat), opt(x.turn_of), opt(x.market_player),
                                     py::bool_(x.mass), opt(x.end_by), x.round));
      }
      out.append(py::make_tuple(ev.steps[k].action, py::bool_(ev.steps[k].forced), events));
    }
    return out;
  }

  // step(id) with its sub-steps and events recorded in `ev` (and, where `ev.states` is
  // set, the state each sub-step is taken at); the id already checked
  void step_recorded(int id, Events& ev) {
    ev.dropped = event_plant_;
    ev.open(id, false, s_);
    ev_ = &ev;
    try {
      step(id);
    } catch (...) {
      ev_ = nullptr;
      throw;
    }
    ev_ = nullptr;
  }

  // --- the catalogue's queries judged after every sub-step (predicates.hpp, monitors.hpp) --

  // `apply_steps`, with every STEP query and every monitor judged after each sub-step, as
  // explore/search.py `expand` judges them: per sub-step (action id, forced, the STEP queries
  // that hold as bits in STEP_NAMES' order, every monitor's value after it in MONITOR_NAMES'
  // order, the monitors whose query holds as bits). `values` are the monitors' values before
  // the step (monitors.py Value: None or a tuple of ints), one per monitor. The same checks
  // and errors as `apply`; on an error the state is unchanged.
  // Sub-step k of a step recorded in `ev` (its `states` kept the state after each forced
  // sub-step but the last): the state it was taken at (`start` for the first), its action and
  // rule events, and the state after it (the next kept state, or `end` after the last). The
  // one reading of a recorded step that apply_judged and explore_step_judged share.
  static village::predicates::Sub sub_step(const Events& ev, size_t k, const State& start,
                                           const std::vector<State>& kept, const State& end) {
    size_t first = ev.steps[k].first;
    size_t last = k + 1 < ev.steps.size() ? ev.steps[k + 1].first : ev.events.size();
    return {k == 0 ? start : kept[k - 1], ev.steps[k].action, ev.events.data() + first, last - first,
            k < kept.size() ? kept[k] : end};
  }

  py::list apply_judged(int id, const std::vector<py::object>& values) {
    namespace pr = village::predicates;
    if (values.size() != pr::N_MONITORS)
      throw std::invalid_argument("apply_judged: one value per monitor (" + std::to_string(pr::N_MONITORS) + ")");
    std::array<pr::Value, pr::N_MONITORS> value;
    for (size_t m = 0; m < values.size(); ++m) value[m] = value_of(values[m]);
    check_id(id);
    const State given = s_;
    std::vector<State> states;  // the forced sub-steps' states
    Events ev;
    ev.states = &states;
    step_recorded(id, ev);
    py::list out;
    try {
      for (size_t k = 0; k < ev.steps.size(); ++k) {
        pr::Sub sub = sub_step(ev, k, given, states, s_);
        uint32_t held = pr::judge(*t_, *this, sub, pr::ALL_STEP_QUERIES, predicate_plant_);
        uint32_t monitored = 0;
        py::tuple now(static_cast<size_t>(pr::N_MONITORS));
        for (int m = 0; m < pr::N_MONITORS; ++m) {
          value[m] = pr::update(m, *t_, value[m], sub);
          if (pr::holds(m, *t_, value[m], sub, predicate_plant_)) monitored |= 1u << m;
          now[m] = py_value(value[m]);
        }
        out.append(py::make_tuple(ev.steps[k].action, py::bool_(ev.steps[k].forced), held, now, monitored));
      }
    } catch (...) {
      s_ = given;  // the state the step was taken at: unchanged on an error
      throw;
    }
    return out;
  }

  // One sub-step handed in whole, judged as apply_judged judges each of its own: from this
  // game's state by the action `id` to `after`'s state, with the rule `events` (tuples as
  // apply_steps gives them). The states need not be a step of the rules (a hand-made one:
  // the tie shows each query holding where the rules forbid it). (STEP queries held as bits,
  // every monitor's value after it, monitors held as bits.)
  py::tuple judge_sub(int id, const Game& after, const std::vector<py::tuple>& events,
                      const std::vector<py::object>& values) const {
    namespace pr = village::predicates;
    if (t_ != after.t_) throw std::invalid_argument("judge_sub: the two games do not share their tables");
    if (id < 0 || id >= t_->n_actions) throw IllegalIdError("action id " + std::to_string(id) + " is out of range");
    if (values.size() != pr::N_MONITORS)
      throw std::invalid_argument("judge_sub: one value per monitor (" + std::to_string(pr::N_MONITORS) + ")");
    std::vector<std::string> rules;  // the events' rule IDs, kept alive while they are read
    rules.reserve(events.size());
    std::vector<Event> kept;
    auto opt = [](const py::handle& h) { return h.is_none() ? NONE : h.cast<int>(); };
    for (const auto& e : events) {
      if (e.size() != 7) throw std::invalid_argument("judge_sub: an event is 7 fields");
      rules.push_back(e[0].cast<std::string>());
      kept.push_back({rules.back().c_str(), opt(e[1]), opt(e[2]), opt(e[3]), e[4].cast<bool>(), opt(e[5]),
                      e[6].cast<int>()});
    }
    pr::Sub sub{s_, id, kept.data(), kept.size(), after.s_};
    uint32_t held = pr::judge(*t_, *this, sub, pr::ALL_STEP_QUERIES, predicate_plant_);
    uint32_t monitored = 0;
    py::tuple now(static_cast<size_t>(pr::N_MONITORS));
    for (int m = 0; m < pr::N_MONITORS; ++m) {
      pr::Value v = pr::update(m, *t_, value_of(values[m]), sub);
      if (pr::holds(m, *t_, v, sub, predicate_plant_)) monitored |= 1u << m;
      now[m] = py_value(v);
    }
    return py::make_tuple(held, now, monitored);
  }

  // monitors.py Value from Python: None or a tuple of ints
  static village::predicates::Value value_of(const py::object& o) {
    village::predicates::Value v;
    if (o.is_none()) return v;
    auto xs = o.cast<std::vector<int>>();
    if (xs.size() > v.v.size()) throw std::invalid_argument("a monitor value of more than 8 ints");
    v.size = static_cast<int>(xs.size());
    std::copy(xs.begin(), xs.end(), v.v.begin());
    return v;
  }
  static py::object py_value(const village::predicates::Value& v) {
    if (v.none()) return py::none();
    py::tuple out(v.size);
    for (int k = 0; k < v.size; ++k) out[k] = py::int_(v.v[k]);
    return out;
  }

  // A planted bug for the tests (predicates.hpp PLANT_NAMES): a native predicate or monitor
  // made to differ from the Python one; "" plants nothing.
  void set_predicate_plant(const std::string& name) { predicate_plant_ = village::predicates::plant_of(name); }

  // predicates::Core: the legal ids (query 11) and the final scoring (queries 8 and 13)
  void predicates_legal(const State& s, std::vector<int>& out) const override { legal_into(s, out); }
  std::vector<int> predicates_scores(const State& s) const override { return scores_of(s); }
  std::vector<int> predicates_winners(const State& s) const override { return winners_of(s); }

  // A planted bug for the tests (EVENT_PLANTS): "drop MKT-01" leaves that rule's events out
  // of apply_steps; "" plants nothing.
  void set_event_plant(const std::string& name) {
    if (name.empty()) {
      event_plant_.clear();
    } else if (name == "drop MKT-01") {
      event_plant_ = "MKT-01";
    } else {
      throw std::invalid_argument("unknown event plant '" + name + "' (known: 'drop MKT-01', or '' for none)");
    }
  }

  // Context.fire: record `rule` at `s` for `seat` while apply_steps asks for the events
  void fire(const char* rule, const State& s, int seat = NONE) const { village::fire(ev_, rule, s, seat); }

  // perform and settle an id already checked (legal, or an outcome): on a copy of the state
  // (copy-assigned into scratch_, whose storage is reused: no allocation per step in a game),
  // swapped in only once the step is done, so a refused step leaves the state unchanged
  void step(int id) {
    scratch_ = s_;
    Sub sub = perform(scratch_, id);
    settle(scratch_, sub);
    std::swap(s_, scratch_);
  }


  // A random playout of the supported part from the current state, all in C++: seeded
  // draws (std::mt19937_64; model/chance.py sample's integer method), uniform choices;
  // stops at the first unsupported step or after max_steps. Returns (steps, decisions).
  //
  // The steps are worked on the state in place (no copy per step); the state it started
  // from and the ids applied since are kept, so a step that fails half way (refused, or an
  // error) is undone by replaying them: the state is then the last complete one, as `apply`
  // leaves it. A refusal ends the playout; any other error is raised again.
  std::pair<long long, long long> playout_impl(unsigned long long seed, long long max_steps) {
    std::mt19937_64 rng(seed);
    long long steps = 0, decisions = 0;
    auto& legal_ids = playout_buf_;
    auto& applied = playout_ids_;
    applied.clear();
    start_ = s_;
    while (steps < max_steps && !is_terminal()) {
      bool decision = !is_chance();
      int id;
      try {
        if (!decision) {
          id = draw_outcome(rng);
        } else {
          legal_into(s_, legal_ids);
          id = legal_ids[rng() % legal_ids.size()];
        }
      } catch (const NotSupportedError&) {
        break;  // nothing changed yet
      }
      try {  // drawn from the outcomes or the legal ids just computed: no second check
        Sub sub = perform(s_, id);
        settle(s_, sub);
      } catch (const NotSupportedError&) {
        replay(applied);
        break;
      } catch (...) {
        replay(applied);
        throw;
      }
      applied.push_back(id);
      ++steps;
      decisions += decision ? 1 : 0;
    }
    return {steps, decisions};
  }

  // the playout's start state again, then the ids it applied (each of which succeeded once)
  void replay(const std::vector<int>& applied) {
    s_ = start_;
    for (int id : applied) {
      Sub sub = perform(s_, id);
      settle(s_, sub);
    }
  }

  // The playout's draw of the pending chance event, with no list of fractions: each outcome
  // as (id, count) in chance_of's order, counts over their total (proportional; a refill's
  // every tile counts 1). The same draw as sampling chance_of's reduced fractions: a ticket
  // rng() % den, den the lcm of the reduced denominators, each outcome taking
  // numerator * (den / denominator) tickets in turn; past the end, the last.
  int draw_outcome(std::mt19937_64& rng) const {
    const State& s = s_;
    auto& counts = counts_buf_;
    counts.clear();
    switch (s.pending.kind) {
      case SEED_DRAW:
        for (int c : CUBES_SORTED)
          if (s.green_bag[c]) counts.emplace_back(t_->draw_cube[c], s.green_bag[c]);
        break;
      case REFILL_DRAW:
        for (int tile : s.customer_pile) counts.emplace_back(customer_id(tile), 1);
        break;
      case MASS_DRAW:
        counts.emplace_back(t_->draw_monk, s.bag_monks);
        for (size_t seat = 0; seat < s.players.size(); ++seat) {
          const auto& members = s.players[seat].members;
          for (size_t i = 0; i < members.size(); ++i) {
            if (members[i] != t_->black_bag) continue;
            int key = static_cast<int>(seat) * 100000 + t_->family_numbers.at(i);
            auto id = t_->draw_member.find(key);
            if (id == t_->draw_member.end()) throw IllegalIdError("no action id for a member drawn from the bag");
            auto seen = std::find_if(counts.begin() + 1, counts.end(), [&](const auto& c) { return c.first == id->second; });
            if (seen == counts.end())
              counts.emplace_back(id->second, 1);
            else
              seen->second += 1;
          }
        }
        break;
      default:
        return draw_fractions(chance_of(s), rng);  // any other event (FateReveal: refused there)
    }
    // With G the gcd of the counts (it divides their total T): the lcm of the reduced
    // denominators T / gcd(c, T) is T / G, and each outcome's tickets are c / G.
    long long total = 0, common = 0;
    for (const auto& c : counts)
      if (c.second > 0) {
        total += c.second;
        common = std::gcd(common, static_cast<long long>(c.second));
      }
    if (total == 0) throw IllegalIdError("a chance event with no outcome");
    long long den = total / common;
    long long ticket = static_cast<long long>(rng() % static_cast<unsigned long long>(den));
    int id = -1;
    for (const auto& c : counts) {
      if (c.second <= 0) continue;
      id = c.first;
      ticket -= c.second / common;
      if (ticket < 0) return id;
    }
    if (id < 0) throw IllegalIdError("a chance event with no outcome");
    return id;
  }

  // model/chance.py sample on chance_of's fractions: a ticket below the lcm of the denominators
  static int draw_fractions(const std::vector<std::tuple<int, long long, long long>>& outs, std::mt19937_64& rng) {
    if (outs.empty()) throw IllegalIdError("a chance event with no outcome");
    long long den = 1;
    for (const auto& o : outs) den = std::lcm(den, std::get<2>(o));
    long long ticket = static_cast<long long>(rng() % static_cast<unsigned long long>(den));
    for (const auto& o : outs) {
      ticket -= std::get<1>(o) * (den / std::get<2>(o));
      if (ticket < 0) return std::get<0>(o);
    }
    return std::get<0>(outs.back());
  }
  // solo::Core: the steps the solo mode shares with a game of several players
  void solo_market_start(State& s, int seat) const override { market_start(s, seat); }
  void solo_note_last_space(State& s, int seat, int dest) const override { note_last_space(s, seat, dest); }
  int solo_chronicle_free(const State& s, int category) const override { return chronicle_free(s, category); }
  int solo_graveyard_free(const State& s) const override { return graveyard_free(s); }
  // explore::Core: the explorer's steps on the states it holds (explore.cpp)
  const State& explore_root() const override { return s_; }
  void explore_legal(const State& s, std::vector<int>& out) const override { legal_into(s, out); }
  std::vector<std::tuple<int, long long, long long>> explore_chance(const State& s) const override {
    return chance_of(s);
  }
  void explore_step(State& s, int id) const override {
    Sub sub = perform(s, id);
    settle(s, sub);
  }
  // explore_step with the STEP queries judged after every sub-step (as apply_judged), `s`
  // equal to `before` when called: the forced sub-steps' states are kept in this core's
  // buffers (one core per explorer thread)
  void explore_step_judged(const State& before, State& s, int id, village::predicates::Judging& j) const override {
    namespace pr = village::predicates;
    Events& ev = judge_events_;
    ev.events.clear();
    ev.steps.clear();
    judge_states_.clear();
    ev.states = &judge_states_;
    ev.open(id, false, s);
    ev_ = &ev;
    try {
      Sub sub = perform(s, id);
      settle(s, sub);
    } catch (...) {
      ev_ = nullptr;
      throw;
    }
    ev_ = nullptr;
    if (j.fired != nullptr)
      for (const Event& e : ev.events) j.fired->insert(e.rule);
    j.held = 0;
    j.monitored = 0;
    for (size_t k = 0; k < ev.steps.size(); ++k) {
      pr::Sub sub = sub_step(ev, k, before, judge_states_, s);
      if (j.which) j.held |= pr::judge(*t_, *this, sub, j.which, predicate_plant_);
      for (int m = 0; j.monitors >> m; ++m) {  // monitors.fold: updated on every sub-step, held after some
        if (!(j.monitors >> m & 1u)) continue;
        j.values[m] = pr::update(m, *t_, j.values[m], sub);
        if (pr::holds(m, *t_, j.values[m], sub, predicate_plant_)) j.monitored |= 1u << m;
      }
    }
  }
  int explore_chronicle_free(const State& s, int category) const override { return chronicle_free(s, category); }
  int explore_graveyard_free(const State& s) const override { return graveyard_free(s); }
  std::string explore_json(const State& s) const override { return json_of(s); }
  std::unique_ptr<village::explore::Core> explore_clone() const override { return std::make_unique<Game>(*this); }
  void explore_violations(const State& s, std::vector<village::checks::Violation>& out) const override {
    for (auto& v : village::checks::state_violations(*t_, s, *this)) out.push_back(std::move(v));
  }
  void explore_transition_violations(const State& before, int id, const State& after,
                                     std::vector<village::checks::Violation>& out) const override {
    for (auto& v : village::checks::transition_violations(*t_, before, id, after)) out.push_back(std::move(v));
  }
  // checks::Core: the legal ids and chance outcomes the state invariants read (checks.cpp);
  // a broken state may name a seat the game does not have: refused, never read out of range
  void checks_legal(const State& s, std::vector<int>& out) const override {
    int n = static_cast<int>(s.players.size());
    if (!(0 <= s.pending.seat && s.pending.seat < n))
      throw std::invalid_argument("no legal actions for the pending step's seat " + std::to_string(s.pending.seat));
    legal_into(s, out);
  }
  std::vector<std::tuple<int, long long, long long>> checks_chance(const State& s) const override {
    return chance_of(s);
  }
  // checks.cpp state_violations on the current state, as 4-tuples of str
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> violations(const std::string& plant) const {
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
    for (auto& v : village::checks::state_violations(*t_, s_, *this, village::checks::plant_of(plant)))
      out.emplace_back(std::move(v.invariant), std::move(v.component), std::move(v.expected), std::move(v.actual));
    return out;
  }
  // checks.cpp transition_violations of the step from this game's state by `id` to `after`'s,
  // as 4-tuples of str. The two games share their tables (location and action ids mean the
  // same in both) unless their rules or player counts differ: then the step is of another
  // game (transition.same_game) and nothing else is read.
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> transition_violations(
      int id, const Game& after, const std::string& plant) const {
    int which = village::checks::plant_of(plant);
    if (t_ != after.t_ && s_.players.size() == after.s_.players.size() && s_.rules_json == after.s_.rules_json)
      throw std::invalid_argument("the two games have the same rules but not the same tables");
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
    for (auto& v : village::checks::transition_violations(*t_, s_, id, after.s_, which))
      out.emplace_back(std::move(v.invariant), std::move(v.component), std::move(v.expected), std::move(v.actual));
    return out;
  }

  std::shared_ptr<Tables> t_;
  State s_;
  State scratch_;  // the state a step is worked on (step); kept for its storage
  State start_;    // the state the playout started from (playout_impl); kept for its storage
  std::vector<int> playout_ids_;  // the ids the playout has applied since start_
  // buffers reused from step to step (each by one function only, never re-entered meanwhile)
  mutable std::vector<int> playout_buf_, settle_buf_, options_buf_;
  mutable std::vector<std::pair<int, int>> calls_buf_, counts_buf_;
  bool debug_swap_ = false;
  // the rule events asked for (apply_steps, apply_judged, explore_step_judged); null: none recorded
  mutable Events* ev_ = nullptr;
  mutable Events judge_events_;             // explore_step_judged's events and sub-steps, reused
  mutable std::vector<State> judge_states_;  // and the state each sub-step is taken at
  std::string event_plant_;  // a planted bug: a rule whose events apply_steps leaves out (tests)
  int predicate_plant_ = 0;  // a planted bug: a predicate or monitor made to differ (tests)

  int customer_id(int tile) const {
    auto it = t_->draw_customer.find(tile);
    if (it == t_->draw_customer.end()) throw IllegalIdError("customer tile " + std::to_string(tile) + " has no id");
    return it->second;
  }

  // model/chance.py proportional: count / total, reduced (Fraction), zero counts left out.
  static std::vector<std::tuple<int, long long, long long>> proportional(
      const std::vector<std::pair<int, int>>& counts) {
    long long total = 0;
    for (auto& c : counts) total += c.second;
    std::vector<std::tuple<int, long long, long long>> out;
    for (auto& c : counts) {
      if (c.second <= 0) continue;
      long long g = std::gcd(static_cast<long long>(c.second), total);
      out.emplace_back(c.first, c.second / g, total / g);
    }
    return out;
  }

  std::vector<int> legal_of(const State& s) const {
    std::vector<int> out;
    legal_into(s, out);
    return out;
  }

  // legal_of into `out` (cleared first): the playout and settle reuse one buffer each, so
  // that asking for the legal ids allocates nothing once the buffer has grown
  void legal_into(const State& s, std::vector<int>& out) const {
    out.clear();
    const Pending& p = s.pending;
    switch (p.kind) {
      case CHOOSE_TURN:
        return turn_candidates(s, p.seat, out);
      case CHOOSE_COMPENSATION_CUBE:
      case CHOOSE_SUPPLY_CUBE:  // PickCube(c) for c in INFLUENCE if the supply has one
        for (int c : INFLUENCE)
          if (s.supply_cubes[c]) out.push_back(t_->pick_cube[c]);
        return;
      case CHOOSE_SUPPLY_GOOD:  // PickGood(g) for g in Good if the supply has one
        for (int g = 0; g < N_GOODS; ++g)
          if (s.supply_goods[g]) out.push_back(t_->pick_good[g]);
        return;
      case CHOOSE_ACTION:
        return action_step(s, p.seat, p.space, out);
      case CHOOSE_DYING:
        return dying_legal(s, p.seat, out);
      case CHOOSE_PAYMENT: {  // core._generate: the payment options of the pending action's costs
        auto paid_for = t_->ids.find(p.action);
        if (paid_for == t_->ids.end()) throw IllegalIdError("ChoosePayment names an unknown action: " + p.action);
        return payment_ids(s, p.seat, paid_for->second, costs_of(s, p.seat, paid_for->second), out);
      }
      case CHOOSE_PRIVILEGE:  // core._generate: the privileges up to the stage reached, then the skip
        for (int k = 1; k <= p.max_stage; ++k)
          if (privilege_allowed(s, p.seat, k, p.max_stage) && privilege_pays_out(s, k))
            out.push_back(t_->privilege_ids.at(k));
        out.push_back(t_->skip);
        return;
      case MARKET_CHOICE:
        return market_legal(s, p.seat, out);
      case MASS_BUY:  // mass.buy_legal, then the skip (no payout: AMB-03 b refuses nothing)
        if (!solo::is_carla(s, p.seat) && s.players.at(p.seat).coins >= t_->mass_coin_price) {  // SOLO-03
          for (int n : numbers_at(s, p.seat, t_->black_bag)) out.push_back(t_->buy_from_bag.at(n));
        }
        out.push_back(t_->skip);
        return;
      case MASS_ADVANCE: {  // mass.advance_legal (stage, then number; grain per stage), then the skip
        std::map<int, std::vector<int>> on_stage;
        const auto& members = s.players.at(p.seat).members;
        for (size_t i = 0; i < members.size(); ++i) {
          int stage = t_->stages[members[i]];
          if (t_->places[members[i]] == P_CHURCH && stage >= 1 && stage < t_->church_stages)
            on_stage[stage].push_back(t_->family_numbers.at(i));
        }
        int grain = s.players.at(p.seat).grain;
        if (solo::is_carla(s, p.seat)) on_stage.clear();  // SOLO-03: Carla pays no grain
        for (auto& [stage, numbers] : on_stage) {
          if (grain < t_->church_step_grain.at(stage - 1)) continue;
          std::sort(numbers.begin(), numbers.end());
          numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
          for (int n : numbers) out.push_back(t_->church_step.at(stage * 1000 + n));
        }
        out.push_back(t_->skip);
        return;
      }
      case CHOOSE_CARLA_CUBE: {  // carla.choice_colours (solo)
        const std::vector<int> ids = solo::choice_ids(s, *t_);
        out.insert(out.end(), ids.begin(), ids.end());
        return;
      }
      case SEED_DRAW: case REFILL_DRAW: case MASS_DRAW: case FATE_REVEAL: case GAME_OVER:
        return;
      default:
        throw NotSupportedError(std::string("legal actions at ") + KIND_NAMES[p.kind] + " are not in the native core yet");
    }
  }

  // engine/turn.py candidates: the takes space by space (the tally's sorted colours), then
  // the wells space by space, colour by colour (AMB-01), or the free final actions.
  void turn_candidates(const State& s, int seat, std::vector<int>& out) const {
    size_t first = out.size();
    for (int sp = 0; sp < N_SPACES; ++sp)
      for (int c : CUBES_SORTED)
        if (s.spaces[sp][c] > 0) out.push_back(t_->take[sp][c]);
    if (out.size() > first) {
      const Player& p = s.players.at(seat);
      int need = t_->well_cubes;
      int coins = s.amb01 != 'b' ? p.coins : 0;  // well_coins_allowed
      int least = s.amb01 == 'c' ? 0 : 1;
      std::array<int, 4> colours{};
      size_t n = 0;
      for (int c : INFLUENCE)
        if (p.cubes[c] >= least && p.cubes[c] + coins >= need) colours[n++] = c;
      for (int sp = 0; sp < N_SPACES; ++sp)
        for (size_t k = 0; k < n; ++k) out.push_back(t_->well[sp][colours[k]]);
    } else if (s.final_turns) {
      for (int sp = 0; sp < N_SPACES; ++sp) out.push_back(t_->free_[sp]);
    }
  }

  void require_legal(const State& s, int id) const {
    auto& ids = settle_buf_;  // (free: a step is checked before it is settled)
    legal_into(s, ids);
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      throw IllegalIdError("action id " + std::to_string(id) + " is not legal at " + KIND_NAMES[s.pending.kind]);
  }

  // engine/common.py take_cube: an influence cube from the supply; nothing if out (AMB-03).
  static void take_supply_cube(State& s, int seat, int colour) {
    if (s.supply_cubes[colour] == 0) return;
    s.supply_cubes[colour] -= 1;
    s.players.at(seat).cubes[colour] += 1;
  }

  // engine/seeding.py begin_round (SEED-01).
  void begin_round(State& s) const {
    const auto& added = t_->cubes_added.at(static_cast<int>(s.players.size()));
    std::array<int, N_CUBES> moved{};
    for (int c : INFLUENCE) moved[c] = std::min(added[c], s.supply_cubes[c]);
    moved[PLAGUE] = s.supply_cubes[PLAGUE];
    for (int c = 0; c < N_CUBES; ++c) {
      s.supply_cubes[c] -= moved[c];
      s.green_bag[c] += moved[c];
    }
    next_draw(s, 0, NONE);
  }

  // engine/seeding.py _next_step: the next draw, or false once the seeding is done.
  bool next_seed_step(const State& s, int first_space, int remaining, Pending& out) const {
    const auto& card = t_->cubes_per_space.at(static_cast<int>(s.players.size()));
    int index = first_space;
    int left = remaining == NONE ? card[index] : remaining;
    while (left == 0) {
      index += 1;
      if (index == N_SPACES) return false;
      left = card[index];
    }
    int bag = 0;
    for (int n : s.green_bag) bag += n;
    if (bag == 0) return false;
    out = Pending{};
    out.kind = SEED_DRAW;
    out.space = index;
    out.remaining = left;
    return true;
  }

  // engine/seeding.py next_draw
  void next_draw(State& s, int first_space, int remaining) const {
    Pending after;
    if (next_seed_step(s, first_space, remaining, after))
      s.pending = after;
    else
      first_turn(s);
  }

  // engine/seeding.py _first_turn with end_of_game.after_reseeding
  static void first_turn(State& s) {
    int seat = s.start_player;
    if (s.final_turns && !s.final_turns->empty()) {
      seat = s.final_turns->front();
      s.final_turns->erase(s.final_turns->begin());
    }
    s.pending = Pending{};
    s.pending.kind = CHOOSE_TURN;
    s.pending.seat = seat;
  }

  // engine/seeding.py draw_onto_space (SEED-02)
  void draw_onto_space(State& s, int cube) const {
    int index = s.pending.space, remaining = s.pending.remaining;
    s.green_bag[cube] -= 1;
    s.spaces[index][cube] += 1;
    Pending after;
    bool more;
    if (remaining > 1)
      more = next_seed_step(s, index, remaining - 1, after);
    else if (index + 1 == N_SPACES)
      more = false;
    else
      more = next_seed_step(s, index + 1, NONE, after);
    if (more)
      s.pending = after;
    else
      first_turn(s);
  }

  // engine/common.py numbers_at: the distinct numbers of the seat's members at a place, ascending
  std::vector<int> numbers_at(const State& s, int seat, int location) const {
    std::vector<int> out;
    const auto& members = s.players.at(seat).members;
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == location) out.push_back(t_->family_numbers.at(i));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // engine/time_and_death.py dying_number (DEATH-02, AMB-46): the number that has to die, or NONE
  int dying_number(const State& s, int seat) const {
    const auto& members = s.players.at(seat).members;
    int lowest = NONE;
    for (size_t i = 0; i < members.size(); ++i) {
      int place = t_->places[members[i]];
      bool visible = place == P_FARMYARD || place == P_CRAFT || place == P_COUNCIL || place == P_CHURCH ||
                     place == P_TRAVEL;
      if (visible && (lowest == NONE || t_->family_numbers.at(i) < lowest)) lowest = t_->family_numbers.at(i);
    }
    if (lowest != NONE && s.amb46 == 'a') {  // AMB-46 a: the lowest living number, or nobody
      for (size_t i = 0; i < members.size(); ++i) {
        int place = t_->places[members[i]];
        bool alive = place != P_UNBORN && place != P_CHRONICLE && place != P_GRAVEYARD && place != P_REMOVED;
        if (alive && t_->family_numbers.at(i) < lowest) return NONE;
      }
    }
    return lowest;
  }

  // engine/time_and_death.py death_candidates (DEATH-02, DEATH-05): the distinct places of
  // the visible members of the number that has to die, in member order
  // (appended to `out`; a place's Die id is its own, so a place already listed has its id there)
  void dying_legal(const State& s, int seat, std::vector<int>& out) const {
    const auto& members = s.players.at(seat).members;
    int lowest = dying_number(s, seat);
    if (lowest == NONE) return;
    auto first = static_cast<std::ptrdiff_t>(out.size());
    for (size_t i = 0; i < members.size(); ++i) {
      int place = t_->places[members[i]];
      bool visible = place == P_FARMYARD || place == P_CRAFT || place == P_COUNCIL || place == P_CHURCH ||
                     place == P_TRAVEL;
      if (!visible || t_->family_numbers.at(i) != lowest) continue;
      int id = t_->die.at(members[i]);
      if (std::find(out.begin() + first, out.end(), id) == out.end()) out.push_back(id);
    }
  }

  // --- the action step (engine/core.py _action_step): the space's generator, then the skip

  void action_step(const State& s, int seat, int space, std::vector<int>& out) const {
    switch (space) {
      case FAMILY:
        family_legal(s, seat, out);
        break;  // nothing is paid out: no AMB-03 b check
      case GRAIN_HARVEST:
        if (harvest_precondition(s, seat)) {
          // AMB-03 b (supply.payout_shortfall): the supply must hold the grain due
          if (!(s.amb03 == 'b' && s.supply_grain < harvest_due(s, seat))) out.push_back(t_->harvest);
        }
        break;
      case CRAFTS:
        crafts_legal(s, seat, out);
        break;
      case CHURCH:
        church_legal(s, seat, out);
        break;  // entering pays nothing out: the AMB-03 b check refuses nothing
      case COUNCIL_CHAMBER:
        council_legal(s, seat, out);
        break;
      case TRAVEL:
        travel_legal(s, seat, out);
        break;
      case MARKET:
        break;  // a hand-built ChooseAction at the market offers only the skip
      default:  // every space has its generator now: only a space out of range comes here
        throw IllegalIdError("ChooseAction names no action space (" + std::to_string(space) + ")");
    }
    out.push_back(t_->skip);
  }

  // engine/crafts.py legal (CRAFT-01..05; AMB-26 b: training alone), then the AMB-03 b payout
  // check (supply.payout_shortfall: a good for train, produce and buy; the mill's coins)
  void crafts_legal(const State& s, int seat, std::vector<int>& out) const {
    const Player& p = s.players.at(seat);
    auto farm_numbers = numbers_at(s, seat, t_->farmyard);
    bool alone = s.amb26 == 'b';
    bool full = s.amb03 == 'b';
    for (const Craft& c : t_->crafts) {
      auto pays_out = [&](int good) { return !full || s.supply_goods[good] > 0; };
      if (!c.goods.empty()) {
        for (int n : farm_numbers) {
          const auto& row = c.train.at(n);
          for (size_t g = 0; g < c.goods.size(); ++g)
            if (pays_out(c.goods[g])) out.push_back(row.at(g));
        }
      }
      if (alone)
        for (int n : farm_numbers) out.push_back(c.train_alone.at(n));
      if (c.goods.empty()) continue;
      bool trained = std::find(p.members.begin(), p.members.end(), c.location) != p.members.end();
      if (trained)
        for (size_t g = 0; g < c.goods.size(); ++g)
          if (pays_out(c.goods[g])) out.push_back(c.produce.at(g));
      if (can_pay(c.purchase, p, true))
        for (size_t g = 0; g < c.goods.size(); ++g)
          if (pays_out(c.goods[g])) out.push_back(c.buy.at(g));
    }
    if (can_pay(t_->mill_cost, p, true) && !(full && s.supply_coins < t_->mill_coins)) out.push_back(t_->mill);
  }

  // engine/council_chamber.py legal (CNC-01, CNC-02, CNC-04): the placements (one per number
  // on the farmyard, if a cost can be paid), the advances stage by stage (payable once per
  // stage), the privileges up to the furthest stage reached; then the AMB-03 b payout check
  // (supply.payout_shortfall: the cubes of privilege 2, the good of privilege 3)
  void council_legal(const State& s, int seat, std::vector<int>& out) const {
    const Player& p = s.players.at(seat);
    std::set<int> farm;
    std::map<int, std::set<int>> on_stage;
    for (size_t i = 0; i < p.members.size(); ++i) {
      int loc = p.members[i];
      if (loc == t_->farmyard)
        farm.insert(t_->family_numbers.at(i));
      else if (t_->places[loc] == P_COUNCIL)
        on_stage[t_->stages[loc]].insert(t_->family_numbers.at(i));
    }
    if (!farm.empty() && payable(t_->council_place, p))
      for (int n : farm) out.push_back(t_->council_place_ids.at(n));
    for (int stage = 1; stage < t_->council_stages; ++stage) {
      auto here = on_stage.find(stage);
      if (here != on_stage.end() && payable(t_->council_advance.at(stage), p))
        for (int n : here->second) out.push_back(t_->council_advance_ids.at(stage * 1000 + n));
    }
    int top = on_stage.empty() ? 0 : on_stage.rbegin()->first;
    for (int k = 1; k <= top; ++k)
      if (privilege_allowed(s, seat, k, top) && privilege_pays_out(s, k)) out.push_back(t_->privilege_ids.at(k));
  }

  // council_chamber._payable: one of the cost alternatives can be paid (none: free)
  static bool payable(const std::vector<Cost>& alternatives, const Player& p) {
    if (alternatives.empty()) return true;
    for (const Cost& c : alternatives)
      if (can_pay(c, p, true)) return true;
    return false;
  }

  // council_chamber.privilege_precondition (CNC-04): a privilege of the reached stage or an
  // earlier one; stage 4 needs the coin (CNC-08)
  bool privilege_allowed(const State& s, int seat, int stage, int max_stage) const {
    if (stage < 1 || stage > max_stage) return false;
    return stage != 4 || s.players.at(seat).coins >= t_->privilege_coin_price;
  }

  // supply.payout_shortfall for a privilege (AMB-03 b): privilege 2's cubes, privilege 3's good
  bool privilege_pays_out(const State& s, int stage) const {
    if (s.amb03 != 'b') return true;
    if (stage == 2) {
      int cubes = 0;
      for (int c : INFLUENCE) cubes += s.supply_cubes[c];
      return cubes >= t_->privilege_cubes;
    }
    if (stage == 3) {
      int goods = 0;
      for (int n : s.supply_goods) goods += n;
      return goods >= t_->privilege_goods;
    }
    return true;
  }

  // engine/travel_map.py member_cities: the cities (nodes) where the seat has a member, sorted by id
  std::vector<int> member_cities(const State& s, int seat) const {
    std::vector<std::string> ids;
    for (int loc : s.players.at(seat).members)
      if (t_->places[loc] == P_TRAVEL) ids.push_back(t_->locations[loc].substr(7));  // "travel:<city>"
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<int> out;
    for (const auto& id : ids) out.push_back(node_of(id));
    return out;
  }

  int node_of(const std::string& id) const {
    auto it = t_->node_ids.find(id);
    if (it == t_->node_ids.end()) throw NotSupportedError("'" + id + "' is not on this data's travel map");
    return it->second;
  }

  // engine/travel.py marked_starts (AMB-17 b, TRV-07): with no member on the map, the cities
  // the seat has marked (in its markers' order, a repeated one repeated) count as presence
  std::vector<int> marked_starts(const State& s, int seat) const {
    if (s.amb17 != 'b' || !member_cities(s, seat).empty()) return {};
    std::vector<int> out;
    for (const auto& m : s.players.at(seat).markers) out.push_back(node_of(m));
    return out;
  }

  // engine/travel.py legal (TRV-01, TRV-02, TRV-07; AMB-18 b: no trip once the markers are out):
  // the farmyard members number by number, from the village, then from each marked start;
  // then the travellers city by city; each path's cost tested once per origin. Then the
  // AMB-03 b payout check (supply.payout_shortfall: a city reward of coins or cubes due now)
  void travel_legal(const State& s, int seat, std::vector<int>& out) const {
    const Player& p = s.players.at(seat);
    if (s.amb18 == 'b' && static_cast<int>(p.markers.size()) >= t_->travel_markers) return;
    auto payable_from = [&](int origin) {
      std::vector<int> out;
      for (const auto& [c, cost] : t_->paths.at(origin))
        if (c != 0 && can_pay(cost, p, true)) out.push_back(c);
      return out;
    };
    auto id_of = [&](int origin, int destination, int number) {
      auto it = t_->travel_ids.find((static_cast<long long>(origin) * 1000 + destination) * 1000 + number);
      if (it == t_->travel_ids.end()) throw IllegalIdError("a journey with no action id");
      return it->second;
    };
    size_t first = out.size();
    auto farm = numbers_at(s, seat, t_->farmyard);
    if (!farm.empty()) {
      auto from_village = payable_from(0);
      std::vector<std::pair<int, std::vector<int>>> starts;
      for (int start : marked_starts(s, seat)) starts.emplace_back(start, payable_from(start));
      for (int n : farm) {
        for (int c : from_village) out.push_back(id_of(0, c, n));
        for (const auto& [start, destinations] : starts)
          for (int c : destinations) out.push_back(id_of(start, c, n));
      }
    }
    for (int origin : member_cities(s, seat)) {
      auto numbers = numbers_at(s, seat, t_->travel_location.at(origin));
      if (numbers.empty()) continue;
      auto destinations = payable_from(origin);
      for (int n : numbers)
        for (int c : destinations) out.push_back(id_of(origin, c, n));
    }
    if (s.amb03 == 'b') {
      auto paid = std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                                 [&](int id) { return !travel_pays_out(s, seat, t_->decoded[id].b); });
      out.erase(paid, out.end());
    }
  }

  // supply.payout_shortfall for a journey (AMB-03 b): the city's coins or cubes, if due now
  bool travel_pays_out(const State& s, int seat, int destination) const {
    if (arrival(s, seat, destination) == ARRIVE_NOTHING) return true;
    int amount = t_->reward_amount.at(destination);
    if (t_->reward_kind.at(destination) == REWARD_COINS && s.supply_coins < amount) return false;
    if (t_->reward_kind.at(destination) == REWARD_CUBES_OF_CHOICE) {
      int cubes = 0;
      for (int c : INFLUENCE) cubes += s.supply_cubes[c];
      if (cubes < amount) return false;
    }
    return true;
  }

  // engine/travel.py arrival: a new marker and the reward (TRV-04), the reward again (AMB-19 b,
  // TRV-06), another marker and the reward (AMB-19 c, TRV-08), or nothing (TRV-03)
  enum Arrival { ARRIVE_MARK, ARRIVE_AGAIN, ARRIVE_REMARK, ARRIVE_NOTHING };
  int arrival(const State& s, int seat, int destination) const {
    const auto& markers = s.players.at(seat).markers;
    bool markers_left = static_cast<int>(markers.size()) < t_->travel_markers;
    bool marked = std::find(markers.begin(), markers.end(), t_->nodes.at(destination)) != markers.end();
    if (!marked && markers_left) return ARRIVE_MARK;
    if (s.amb19 == 'b' && marked) return ARRIVE_AGAIN;
    if (s.amb19 == 'c' && markers_left) return ARRIVE_REMARK;
    return ARRIVE_NOTHING;
  }

  // --- the market day (engine/market_day.py) ----------------------------------------------

  // market_day.legal (MKT-02, MKT-03, MKT-04; AMB-06 c: MKT-09): each available customer the
  // seat can pay for, by tile, then the pass unless the market-day player must serve
  void market_legal(const State& s, int seat, std::vector<int>& out) const {
    const Player& p = s.players.at(seat);
    bool free = is_free_sale(s, seat);
    std::vector<int> tiles = available_tiles(s);
    for (int tile : tiles)
      if (can_pay(sale_cost(tile, free), p, true)) out.push_back(serve_id(tile));
    if (!must_serve(s, seat)) out.push_back(t_->pass);
  }

  static std::vector<int> available_tiles(const State& s) {
    std::vector<int> tiles;
    for (int tile : s.market_available)
      if (tile != NONE) tiles.push_back(tile);
    std::sort(tiles.begin(), tiles.end());
    return tiles;
  }

  int serve_id(int tile) const {
    auto it = t_->serve_ids.find(tile);
    if (it == t_->serve_ids.end()) throw IllegalIdError("customer tile " + std::to_string(tile) + " has no serve id");
    return it->second;
  }

  // market_day._sale_cost: the customer's demand, plus the later-sale cost unless free
  Cost sale_cost(int tile, bool free) const {
    auto it = t_->demand.find(tile);
    if (it == t_->demand.end()) throw IllegalIdError("customer tile " + std::to_string(tile) + " is not in the data");
    Cost c = it->second;
    if (!free) {
      const Cost& more = t_->later_sale;
      c.time += more.time;
      c.grain += more.grain;
      c.coins += more.coins;
      for (int k = 0; k < N_CUBES; ++k) c.cubes[k] += more.cubes[k];
      for (int g = 0; g < N_GOODS; ++g) c.goods[g] += more.goods[g];
    }
    return c;
  }

  // market_day.is_free_sale (MKT-02): only the market-day player's first sale
  static bool is_free_sale(const State& s, int seat) {
    if (!s.market_day) throw IllegalIdError("no market day is in progress");
    return seat == s.market_day->trigger && !s.market_day->trigger_sold;
  }

  // market_day.must_serve (AMB-06 c, MKT-09): at their first chance the market-day player may
  // not pass while they can pay for an available customer
  bool must_serve(const State& s, int seat) const {
    const auto& day = s.market_day;
    if (s.amb06 != 'c' || !day || seat != day->trigger || day->trigger_sold) return false;
    const Player& p = s.players.at(seat);
    for (int tile : available_tiles(s))
      if (can_pay(sale_cost(tile, true), p, true)) return true;
    return false;
  }

  // market_day.sitting_out (AMB-34 b, MKT-08): during the final actions only the trigger player
  // and those whose final action is still to come take part
  static std::vector<int> sitting_out(const State& s, int trigger) {
    std::vector<int> out;
    if (s.amb34 != 'b' || !s.final_turns) return out;
    for (int seat = 0; seat < static_cast<int>(s.players.size()); ++seat)
      if (seat != trigger && std::find(s.final_turns->begin(), s.final_turns->end(), seat) == s.final_turns->end())
        out.push_back(seat);
    return out;
  }

  // market_day.start (MKT-01): the market day begins with its trigger player, who holds the
  // deaths owed so far until it is over (AMB-27)
  void market_start(State& s, int seat) const {
    fire("MKT-01", s, seat);
    MarketDay day;
    day.trigger = seat;
    day.current = seat;
    day.held_deaths = s.deaths_owed.at(seat);
    s.deaths_owed.at(seat) = 0;
    day.passed = sitting_out(s, seat);
    if (!day.passed.empty()) fire("MKT-08", s);  // AMB-34 b: players who have had their final action sit out
    s.market_day = day;
  }

  // market_day._effect: a pass (MKT-04; AMB-06 b: MKT-10, the first-chance pass waived) or a
  // sale (MKT-02 / MKT-03); then the next seat that has not passed
  void market_effect(State& s, int seat, const Decoded& a) const {
    MarketDay& day = *s.market_day;
    if (a.verb == V_PASS) {
      bool waived = s.amb06 == 'b' && seat == day.trigger && !day.trigger_sold && !day.first_pass_waived;
      if (waived) {
        fire("MKT-10", s, seat);  // AMB-06 b: the first-chance pass does not count
        day.first_pass_waived = true;
      } else {
        fire("MKT-04", s, seat);
        day.passed.push_back(seat);
        std::sort(day.passed.begin(), day.passed.end());
      }
    } else {
      if (ev_) {
        bool free_sale = is_free_sale(s, seat);
        if (free_sale && s.amb06 == 'c') fire("MKT-09", s, seat);  // AMB-06 c: the first chance is a sale
        fire(free_sale ? "MKT-02" : "MKT-03", s, seat);
      }
      s.players.at(seat).customers.push_back(a.a);
      for (int& tile : s.market_available)
        if (tile == a.a) tile = NONE;
      if (seat == day.trigger) day.trigger_sold = true;
    }
    int n = static_cast<int>(s.players.size());
    int next = day.current;
    for (int k = 1; k <= n; ++k) {  // market_day._next_seat
      int candidate = (day.current + k) % n;
      if (std::find(day.passed.begin(), day.passed.end(), candidate) == day.passed.end()) {
        next = candidate;
        break;
      }
    }
    day.current = next;
  }

  // market_day.close (MKT-06): the waiting customers move up in order onto the empty
  // available spaces, the rest of the line moves forward (AMB-42 b is solo only)
  void market_close(State& s) const {
    fire("MKT-06", s);
    std::vector<int> queue;
    for (int tile : s.market_waiting)
      if (tile != NONE) queue.push_back(tile);
    size_t next = 0;
    if (s.carla && s.amb42 == 'b') {  // AMB-42 b (solo only): the customers left move up first
      std::vector<int> left;
      for (int tile : s.market_available)
        if (tile != NONE) left.push_back(tile);
      left.resize(s.market_available.size(), NONE);
      s.market_available = left;
    }
    for (int& tile : s.market_available)
      if (tile == NONE && next < queue.size()) tile = queue[next++];
    std::vector<int> waiting(queue.begin() + static_cast<long>(next), queue.end());
    waiting.resize(s.market_waiting.size(), NONE);
    s.market_waiting = waiting;
    s.market_day->closed = true;
  }

  // engine/church.py legal (CHU-01): one entry per number on the farmyard, if a cost can be paid
  void church_legal(const State& s, int seat, std::vector<int>& out) const {
    auto numbers = numbers_at(s, seat, t_->farmyard);
    if (numbers.empty()) return;
    const Player& p = s.players.at(seat);
    bool payable = t_->church_enter.empty();
    for (const Cost& c : t_->church_enter) payable = payable || can_pay(c, p, true);
    if (!payable) return;
    for (int n : numbers) out.push_back(t_->church_enter_ids.at(n));
  }

  // engine/family.py legal: the birth first (an unborn member), then the calls home sorted
  // by the location's text and the number, once each (AMB-24 b: employed members only).
  void family_legal(const State& s, int seat, std::vector<int>& out) const {
    const auto& members = s.players.at(seat).members;
    auto& calls = calls_buf_;  // (location id, number), sorted as (the location's text, number)
    calls.clear();
    bool unborn = false;
    for (size_t i = 0; i < members.size(); ++i) {
      int place = t_->places[members[i]];
      unborn = unborn || place == P_UNBORN;
      bool allowed = s.amb24 == 'b' ? (place == P_CRAFT || place == P_COUNCIL)
                                    : (place == P_CRAFT || place == P_COUNCIL || place == P_CHURCH || place == P_TRAVEL);
      if (allowed) calls.emplace_back(members[i], t_->family_numbers.at(i));
    }
    std::sort(calls.begin(), calls.end(), [&](const auto& l, const auto& r) {
      if (l.first != r.first) return t_->locations[l.first] < t_->locations[r.first];
      return l.second < r.second;
    });
    calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
    if (unborn) out.push_back(t_->birth);
    for (auto& [location, number] : calls) {
      auto it = t_->call_home.find(location * 1000 + number);
      if (it == t_->call_home.end()) throw IllegalIdError("no action id for calling " + t_->locations[location] + " home");
      out.push_back(it->second);
    }
  }

  // engine/harvest.py precondition: a member on the farmyard; AMB-02 b: room for all the grain
  bool harvest_precondition(const State& s, int seat) const {
    const Player& p = s.players.at(seat);
    if (std::find(p.members.begin(), p.members.end(), t_->farmyard) == p.members.end() || t_->farmyard < 0)
      return false;
    if (s.amb02 == 'b' && harvest_yield(s, seat) > t_->grain_capacity - p.grain) return false;
    return true;
  }

  // engine/harvest.py harvest_yield (HARV-02)
  int harvest_yield(const State& s, int seat) const {
    const auto& g = s.players.at(seat).goods;
    if (g[PLOW] && g[OX]) return t_->harvest_ox_plow;
    if (g[PLOW] && g[HORSE]) return t_->harvest_horse_plow;
    return t_->harvest_base;
  }

  // supply.payout_shortfall's grain due: the yield, capped by the farmyard's room (AMB-02 a)
  int harvest_due(const State& s, int seat) const {
    int room = std::max(0, t_->grain_capacity - s.players.at(seat).grain);
    return std::min(harvest_yield(s, seat), room);
  }

  // --- performing (engine/core.py _perform) and settling (_settle, _next_step) -----------

  struct Sub {
    bool has = false;
    Pending p;
  };
  static Sub some(const Pending& p) { return Sub{true, p}; }
  static Pending decision(int kind, int seat) {
    Pending p;
    p.kind = kind;
    p.seat = seat;
    return p;
  }

  Sub perform(State& s, int id) const {
    const Decoded& a = t_->decoded[id];
    const Pending pending = s.pending;
    switch (pending.kind) {
      case SEED_DRAW:
        fire("SEED-02", s);
        draw_onto_space(s, a.a);
        return some(s.pending);
      case CHOOSE_COMPENSATION_CUBE:
        fire("SET-10", s);
        take_supply_cube(s, pending.seat, a.a);
        begin_round(s);
        return some(s.pending);
      case CHOOSE_SUPPLY_CUBE: {
        take_supply_cube(s, pending.seat, a.a);
        bool any = false;
        for (int c : INFLUENCE) any = any || s.supply_cubes[c] > 0;
        if (pending.remaining > 1 && any) {
          Pending next = decision(CHOOSE_SUPPLY_CUBE, pending.seat);
          next.remaining = pending.remaining - 1;
          return some(next);
        }
        return {};
      }
      case REFILL_DRAW: {  // market_day.place_refill (MKT-07)
        fire("MKT-07", s);
        s.market_waiting.at(pending.position) = a.a;
        s.customer_pile.erase(std::remove(s.customer_pile.begin(), s.customer_pile.end(), a.a), s.customer_pile.end());
        return {};
      }
      case CHOOSE_TURN:
        if (a.verb == V_WELL) {  // core._perform: WELL-01, the turn begins when the well is chosen
          fire("WELL-01", s, pending.seat);
          if (s.carla) solo::after_well(s, ev_);  // solo: Carla takes no cube, no reaction (SOLO-25)
          s.turn = pending.seat;
          s.turn_took_last_cube = false;
          return pay_or_ask(s, pending.seat, id);
        }
        if (a.verb == V_FREE) {  // turn.effect (END-03): a free final action on the empty board; its turn begins
          fire("END-03", s, pending.seat);
          s.turn = pending.seat;
          s.turn_took_last_cube = false;
          return effect(s, pending.seat, id);
        }
        return take_and_begin(s, pending.seat, a.a, a.b);
      case CHOOSE_ACTION:
        if (a.verb == V_SKIP) {
          fire("TURN-02", s, pending.seat);
          return {};
        }
        return pay_or_ask(s, pending.seat, id);
      case CHOOSE_PAYMENT: {  // core._pay_then_effect with the chosen way to pay
        auto paid_for = t_->ids.find(pending.action);
        if (paid_for == t_->ids.end()) throw IllegalIdError("ChoosePayment names an unknown action: " + pending.action);
        auto alternatives = costs_of(s, pending.seat, paid_for->second);
        pay(s, pending.seat, alternatives.at(a.a), a.coins);
        return effect(s, pending.seat, paid_for->second);
      }
      case CHOOSE_PRIVILEGE:  // core._perform: the skip, or council_chamber.use_privilege
        if (a.verb == V_SKIP) return {};
        return use_privilege(s, pending.seat, a.a);
      case MARKET_CHOICE:  // core._perform: a sale is paid for (or asked how), a pass is free
        return pay_or_ask(s, pending.seat, id);
      case CHOOSE_DYING:  // core._perform: DEATH-02, the chosen member dies
        fire("DEATH-02", s, pending.seat);
        kill(s, pending.seat, a.a);
        return {};
      case CHOOSE_SUPPLY_GOOD: {  // core._perform: common.take_good, then more while the supply holds any
        take_supply_good(s, pending.seat, a.a);
        int goods = 0;
        for (int n : s.supply_goods) goods += n;
        if (pending.remaining > 1 && goods > 0) {
          Pending next = decision(CHOOSE_SUPPLY_GOOD, pending.seat);
          next.remaining = pending.remaining - 1;
          return some(next);
        }
        return {};
      }
      case MASS_ADVANCE:  // core._perform: the skip passes on (mass.next_advancer), else mass.step_up
        if (a.verb == V_SKIP) return mass_next_advancer(s, pending.seat);
        return mass_step_up(s, pending.seat, a.a, a.b);
      case MASS_BUY:  // core._perform: the skip passes on (mass.next_buyer), else mass.buy
        if (a.verb == V_SKIP) return mass_next_buyer(s, pending.seat);
        return mass_buy(s, pending.seat, a.a);
      case MASS_DRAW:  // mass.draw
        return mass_draw(s, a, pending.remaining);
      case FATE_REVEAL:  // carla.reveal (solo)
        solo::reveal(s, *t_, id, ev_);
        return {};
      case CHOOSE_CARLA_CUBE: {  // carla.take_chosen (solo)
        solo::Step next = solo::take_chosen(s, *t_, id, ev_);
        return Sub{next.has, next.p};
      }
      default:
        throw NotSupportedError(std::string("apply at ") + KIND_NAMES[pending.kind] + " is not in the native core yet");
    }
  }

  // --- the mass (engine/mass.py: MASS-01..07 with AMB-15 and AMB-16) -----------------------

  // mass.start (MASS-01): the mass begins; the start player may buy first
  Sub mass_start(State& s, bool final) const {
    fire("MASS-01", s);
    Mass mass;
    mass.final = final;
    s.mass = mass;
    return some(decision(MASS_BUY, s.start_player));
  }

  // mass.buy (MASS-02): pay the coin, the member goes to stage 1; after the last piece bought,
  // no drawing; AMB-15 b (MASS-07): one member per purchase, then the next buyer
  Sub mass_buy(State& s, int seat, int number) const {
    fire("MASS-02", s);
    size_t index = find_member(s, seat, t_->black_bag, number);
    Player& p = s.players.at(seat);
    p.coins -= t_->mass_coin_price;
    s.supply_coins += t_->mass_coin_price;
    s.mass->bought += 1;
    p.members.at(index) = t_->church_location.at(1);
    if (s.mass->bought >= t_->mass_pieces) return mass_after_draws(s);
    if (s.amb15 == 'b') {
      fire("MASS-07", s);  // AMB-15 b: one member per purchase, then the next buyer
      return mass_next_still_buying(s, seat);
    }
    return some(decision(MASS_BUY, seat));
  }

  // mass.next_buyer: AMB-15 a, the next seat in order from the start player (then the draws);
  // b, the seat has stopped buying and the buying goes round among the others
  Sub mass_next_buyer(State& s, int seat) const {
    if (s.amb15 == 'b') {
      auto& stopped = s.mass->stopped;
      stopped.push_back(seat);
      std::sort(stopped.begin(), stopped.end());
      return mass_next_still_buying(s, seat);
    }
    int following = (seat + 1) % static_cast<int>(s.players.size());
    if (following != s.start_player) return some(decision(MASS_BUY, following));
    return mass_next_draw(s, t_->mass_pieces - s.mass->bought);  // mass.start_draws
  }

  // mass._next_still_buying (AMB-15 b): clockwise from the left of `seat` (itself last), the
  // first seat that has not stopped; when every seat has, the rest of the pieces are drawn
  Sub mass_next_still_buying(State& s, int seat) const {
    int n = static_cast<int>(s.players.size());
    const auto& stopped = s.mass->stopped;
    for (int k = 1; k <= n; ++k) {
      int following = (seat + k) % n;
      if (std::find(stopped.begin(), stopped.end(), following) == stopped.end())
        return some(decision(MASS_BUY, following));
    }
    return mass_next_draw(s, t_->mass_pieces - s.mass->bought);  // mass.start_draws
  }

  // mass.next_draw: the next draw from the bag, or what follows once no draw is left
  Sub mass_next_draw(State& s, int remaining) const {
    int in_bag = s.bag_monks;
    for (const auto& p : s.players)
      for (int m : p.members) in_bag += m == t_->black_bag ? 1 : 0;
    if (remaining > 0 && in_bag > 0) {
      Pending draw;
      draw.kind = MASS_DRAW;
      draw.remaining = remaining;
      return some(draw);
    }
    return mass_after_draws(s);
  }

  // mass.draw (MASS-03): a drawn monk is set aside, a drawn member goes to the church
  Sub mass_draw(State& s, const Decoded& a, int remaining) const {
    fire("MASS-03", s);
    if (a.verb == V_DRAW_MONK) {
      s.bag_monks -= 1;
      s.monks_aside += 1;
    } else if (a.verb == V_DRAW_MEMBER) {
      size_t index = find_member(s, a.a, t_->black_bag, a.b);
      int stage = s.carla ? solo::entry_stage(s, *t_, a.a, ev_) : 1;  // SOLO-27
      if (stage != NONE) s.players.at(a.a).members.at(index) = t_->church_location.at(stage);
    } else {
      throw IllegalIdError("not a draw from the black bag");
    }
    return mass_next_draw(s, remaining - 1);
  }

  // mass.after_draws: the monks drawn go back into the bag; then step 2 from the start player
  static Sub mass_after_draws(State& s) {
    s.bag_monks += s.monks_aside;
    s.monks_aside = 0;
    return some(decision(MASS_ADVANCE, s.start_player));
  }

  // mass.step_up (MASS-04): the grain shown between the stages, one stage up; the seat again
  Sub mass_step_up(State& s, int seat, int stage, int number) const {
    fire("MASS-04", s);
    int price = t_->church_step_grain.at(stage - 1);
    size_t index = find_member(s, seat, t_->church_location.at(stage), number);
    Player& p = s.players.at(seat);
    p.grain -= price;
    s.supply_grain += price;
    p.members.at(index) = t_->church_location.at(stage + 1);
    return some(decision(MASS_ADVANCE, seat));
  }

  // mass.next_advancer: the next seat to move up, or the majority and the end of the mass
  Sub mass_next_advancer(State& s, int seat) const {
    int following = (seat + 1) % static_cast<int>(s.players.size());
    if (following != s.start_player) return some(decision(MASS_ADVANCE, following));
    mass_award_majority(s);
    return {};
  }

  // mass.award_majority (MASS-05): the majority prestige to the most members on the church;
  // a tie goes to the furthest-forward member, still tied each of them (AMB-16 a); AMB-16 b
  // (MASS-06): the tied players' next members, in order, break the tie further
  void mass_award_majority(State& s) const {
    fire("MASS-05", s);
    bool next_members = s.amb16 == 'b';
    std::vector<std::pair<size_t, std::vector<int>>> counts;  // (count, key) by seat
    size_t most = 0;
    for (const auto& p : s.players) {
      std::vector<int> stages;
      for (int m : p.members)
        if (t_->places[m] == P_CHURCH) stages.push_back(t_->stages[m]);
      std::sort(stages.rbegin(), stages.rend());
      size_t count = stages.size();
      if (!next_members && stages.size() > 1) stages.resize(1);
      counts.emplace_back(count, std::move(stages));
      most = std::max(most, count);
    }
    if (most == 0) return;
    std::vector<int> best;
    for (const auto& [count, key] : counts)
      if (count == most && key > best) best = key;
    if (ev_ && next_members) {  // AMB-16 b: the furthest members tie; the next ones decide (MASS-06)
      int furthest = 0;
      for (const auto& [count, key] : counts) furthest += count == most && key.front() == best.front();
      if (furthest > 1) fire("MASS-06", s);
    }
    for (size_t seat = 0; seat < counts.size(); ++seat) {
      if (counts[seat].first != most || counts[seat].second != best) continue;
      if (solo::is_carla(s, static_cast<int>(seat))) {
        fire("SOLO-29", s);  // Carla receives none
        continue;
      }
      s.players[seat].prestige += t_->majority_prestige;
    }
  }

  // engine/core.py _end_of_mass: after the final mass the game is over (SCORE-01); after a
  // round mass held once the end was triggered and no new round begins (AMB-33 c: END-09,
  // AMB-45 b: END-11, AMB-33 b with no final action left), the final actions left or the
  // final mass; else the next round (ROUND-02: the start player's marker, then the seeding)
  Sub end_of_mass(State& s) const {
    if (s.mass->final) {
      fire("SCORE-01", s);
      s.mass.reset();
      return some(Pending{});  // GameOver
    }
    bool left = s.final_turns && !s.final_turns->empty();
    bool no_new_round = s.end_triggered_by != NONE && (s.mass->in_final_actions || s.amb33 == 'c' || !left);
    if (no_new_round) {  // end_of_game.final_actions_after_round_mass
      if (!left) {
        fire("END-06", s);
        s.mass.reset();
        return mass_start(s, true);
      }
      s.mass.reset();
      int seat = s.final_turns->front();  // end_of_game.after_reseeding
      s.final_turns->erase(s.final_turns->begin());
      return some(decision(CHOOSE_TURN, seat));
    }
    fire("ROUND-02", s);
    int start = s.next_start_holder == NONE ? s.start_player : s.next_start_holder;
    s.mass.reset();
    s.round += 1;
    s.start_player = start;
    s.next_start_holder = NONE;
    if (s.carla) solo::new_round(s, ev_);  // solo: her cubes but the last go back (SOLO-26)
    begin_round(s);
    return some(s.pending);
  }

  // engine/turn.py effect of a TakeCube: take_cube (TURN-01; a plague cube goes back to
  // the supply and costs time, TURN-03), then begin_action.
  Sub take_and_begin(State& s, int seat, int space, int cube) const {
    fire("TURN-01", s, seat);
    if (cube == PLAGUE) fire("TURN-03", s, seat);
    s.spaces[space][cube] -= 1;
    s.turn = seat;
    // engine/shared.py last_cube_in_final_action (AMB-45): a final action that leaves the board
    // empty marks its turn (Turn.took_last_cube)
    bool empty = true;
    for (const auto& row : s.spaces)
      for (int n : row) empty = empty && n == 0;
    s.turn_took_last_cube = s.final_turns.has_value() && empty;
    if (cube == PLAGUE) {
      s.supply_cubes[PLAGUE] += 1;
      spend_time(s, seat, t_->plague_time);
    } else {
      s.players.at(seat).cubes[cube] += 1;
    }
    if (s.carla) {  // solo: her take follows (SOLO-10); AMB-36 b: her steps before the action
      solo::owe_take(s, space, cube, ev_);
      if (s.amb36 == 'b') {
        s.carla->action_waits = space;
        return {};
      }
    }
    return begin_action(s, seat, space);
  }

  // engine/turn.py begin_action: the space's action; at the market a market day (MKT-01)
  Sub begin_action(State& s, int seat, int space) const {
    if (space == MARKET) {  // turn.begin_action: a market day must be held (MKT-01)
      market_start(s, seat);
      return {};
    }
    Pending next = decision(CHOOSE_ACTION, seat);
    next.space = space;
    return some(next);
  }

  // engine/time_and_death.py spend_time (TIME-01, DEATH-01) with cap_owed (AMB-08)
  void spend_time(State& s, int seat, int amount) const {
    fire("TIME-01", s, seat);
    Player& p = s.players.at(seat);
    int length = t_->lifetime_track_length;
    int moved = p.lifetime + amount;
    int passes = moved / length;
    p.lifetime = moved % length;
    for (int k = 0; k < passes; ++k) fire("DEATH-01", s, seat);
    if (passes) s.deaths_owed.at(seat) = cap_owed(s, s.deaths_owed.at(seat), passes);
  }

  // engine/time_and_death.py cap_owed: AMB-08 a, one death per pass; b (DEATH-08), at most one owed
  int cap_owed(const State& s, int owed, int more) const {
    if (s.amb08 == 'b' && owed + more > 1) {
      fire("DEATH-08", s);
      return 1;
    }
    return owed + more;
  }

  // engine/time_and_death.py resolve_deaths (DEATH-02, DEATH-05, DEATH-07 under AMB-23 b):
  // false when it stops at a ChooseDying decision (then `dying` is set)
  bool resolve_deaths(State& s, int seat, Sub& dying) const {
    while (s.deaths_owed.at(seat) > 0) {
      std::vector<int> places;
      dying_legal(s, seat, places);
      if (places.empty()) {
        if (s.amb23 == 'b') {
          fire("DEATH-07", s, seat);  // AMB-23 b: owed until a member is visible
          return true;
        }
        fire("DEATH-05", s, seat);
        s.deaths_owed.at(seat) = 0;
        return true;
      }
      if (places.size() > 1) {
        dying = some(decision(CHOOSE_DYING, seat));
        return false;
      }
      kill(s, seat, t_->decoded.at(places[0]).a);  // the one candidate (a Die id) names its place
    }
    return true;
  }

  // engine/time_and_death.py kill (DEATH-03, DEATH-04, END-05; AMB-10 b: removed once the end
  // is triggered; AMB-46 b's DEATH-09 passes a hidden lower number over, nothing to do here)
  void kill(State& s, int seat, int location) const {
    int lowest = dying_number(s, seat);
    if (lowest == NONE) throw IllegalIdError("no member of this seat can die");
    Player& p = s.players.at(seat);
    size_t index = p.members.size();
    for (size_t i = 0; i < p.members.size(); ++i) {
      if (p.members[i] == location && t_->family_numbers.at(i) == lowest) {
        index = i;
        break;
      }
    }
    if (index == p.members.size()) throw IllegalIdError("no member of the dying number at " + t_->locations[location]);
    if (ev_) {  // AMB-46 b (DEATH-09): a lower number alive but hidden (the black bag) is passed over
      for (size_t i = 0; i < p.members.size(); ++i) {
        int place = t_->places[p.members[i]];
        bool alive = place != P_UNBORN && place != P_CHRONICLE && place != P_GRAVEYARD && place != P_REMOVED;
        bool visible = place == P_FARMYARD || place == P_CRAFT || place == P_COUNCIL || place == P_CHURCH ||
                       place == P_TRAVEL;
        if (alive && !visible && t_->family_numbers.at(i) < lowest) {
          fire("DEATH-09", s, seat);
          break;
        }
      }
    }
    int category = category_of(location);
    int dest;
    if (s.end_triggered_by != NONE && s.amb10 == 'b') {
      fire("END-05", s, seat);  // AMB-10 b: every death after the end trigger leaves the game
      dest = t_->removed;
    } else if (chronicle_free(s, category) > 0) {
      fire("DEATH-03", s, seat);
      dest = t_->chronicle_location[category];
    } else if (graveyard_free(s) > 0) {
      fire("DEATH-04", s, seat);
      dest = t_->graveyard;
    } else {
      fire("END-05", s, seat);
      dest = t_->removed;
    }
    p.members[index] = dest;
    s.deaths_owed.at(seat) -= 1;
    note_last_space(s, seat, dest);
  }

  // data/components.py workplace: the chronicle category of a visible member's place (DEATH-03)
  int category_of(int location) const {
    switch (t_->places[location]) {
      case P_FARMYARD: return CAT_FARMYARD;
      case P_CRAFT: return CAT_CRAFTS;
      case P_TRAVEL: return CAT_TRAVEL;
      case P_COUNCIL: return CAT_COUNCIL;
      case P_CHURCH: return CAT_CHURCH;
      default: throw IllegalIdError("a member at " + t_->locations[location] + " has no workplace");
    }
  }

  // model/state.py chronicle_free / graveyard_free: open spaces (data) less the members there
  int chronicle_free(const State& s, int category) const {
    int open = t_->chronicle_open.at(static_cast<int>(s.players.size()))[category];
    int target = t_->chronicle_location[category];
    for (const auto& p : s.players)
      for (int m : p.members) open -= m == target ? 1 : 0;
    return open;
  }
  int graveyard_free(const State& s) const {
    int open = t_->graveyard_open.at(static_cast<int>(s.players.size()));
    for (const auto& p : s.players)
      for (int m : p.members) open -= m == t_->graveyard ? 1 : 0;
    return open;
  }

  // engine/time_and_death.py note_last_space (END-01; AMB-12 through chronicle_full, AMB-44 b: END-10)
  void note_last_space(State& s, int seat, int dest) const {
    bool filled = false;
    if (t_->places[dest] == P_CHRONICLE) {
      int category = -1;
      for (int c = 0; c < N_CATEGORIES; ++c)
        if (t_->chronicle_location[c] == dest) category = c;
      if (s.amb12 == 'b') {  // AMB-12 b: the category just placed is full
        filled = chronicle_free(s, category) == 0;
      } else {  // AMB-12 a: every open chronicle space is taken
        int free = 0;
        for (int c = 0; c < N_CATEGORIES; ++c) free += chronicle_free(s, c);
        filled = free == 0;
      }
    } else if (dest == t_->graveyard) {
      filled = graveyard_free(s) == 0;
    }
    if (!filled || s.end_triggered_by == seat) return;
    if (s.end_triggered_by != NONE) {
      // later_filler_counts (AMB-44 b): only during a market day, the final actions not settled
      bool later = s.amb44 == 'b' && s.market_day.has_value() && !s.final_turns.has_value();
      if (!later) return;
      fire("END-10", s, seat);  // AMB-44 b: the later last space decides who triggered the end
    } else {
      fire("END-01", s, seat);
    }
    s.end_triggered_by = seat;
    if (s.carla && s.market_day) s.carla->end_in_market_of = s.market_day->trigger;  // solo: whose market day
  }

  // --- paying (engine/payment.py; core._pay_or_ask, _pay_then_effect, _costs) ------------

  // engine/payment.py _affordable: the cost with `coins` standing in for those cubes
  static bool affordable(const Cost& cost, const Player& p, const std::array<int, N_CUBES>& coins) {
    if (p.grain < cost.grain) return false;
    for (int g = 0; g < N_GOODS; ++g)
      if (p.goods[g] < cost.goods[g]) return false;
    int total = 0;
    for (int n : coins) total += n;
    if (p.coins < cost.coins + total) return false;
    for (int c = 0; c < N_CUBES; ++c)
      if (p.cubes[c] < cost.cubes[c] - coins[c]) return false;
    return true;
  }

  // engine/payment.py coin_splits (COIN-01): every way to pay `cost` with some of its cubes
  // replaced by coins, in itertools.product's order over the cost's colours (sorted by text)
  static std::vector<std::array<int, N_CUBES>> coin_splits(const Cost& cost, const Player& p, bool coins_allowed) {
    std::vector<int> colours;
    for (int c : CUBES_SORTED)
      if (cost.cubes[c] > 0) colours.push_back(c);
    int spare = p.coins - cost.coins;
    std::vector<std::array<int, N_CUBES>> out;
    if (!coins_allowed || spare <= 0 || colours.empty()) {
      if (affordable(cost, p, {})) out.push_back({});
      return out;
    }
    std::array<int, N_CUBES> split{};
    // the last colour varies fastest, as itertools.product does
    std::function<void(size_t)> walk = [&](size_t k) {
      if (k == colours.size()) {
        if (affordable(cost, p, split)) out.push_back(split);
        return;
      }
      int c = colours[k];
      for (int n = 0; n <= std::min(cost.cubes[c], spare); ++n) {
        split[c] = n;
        walk(k + 1);
      }
      split[c] = 0;
    };
    walk(0);
    return out;
  }

  // engine/payment.py can_pay: whether coin_splits would yield anything, computed directly
  static bool can_pay(const Cost& cost, const Player& p, bool coins_allowed) {
    if (p.grain < cost.grain) return false;
    for (int g = 0; g < N_GOODS; ++g)
      if (p.goods[g] < cost.goods[g]) return false;
    int spare = p.coins - cost.coins;
    if (spare < 0) return false;
    int short_ = 0;
    for (int c = 0; c < N_CUBES; ++c)
      if (p.cubes[c] < cost.cubes[c]) short_ += cost.cubes[c] - p.cubes[c];
    return short_ == 0 || (coins_allowed && short_ <= spare);
  }

  // core._costs: the cost alternatives of an action (WELL-01, CRAFT-01..05, CHU-01, CNC-01/02;
  // TRV-01; none for the family, the harvest and a privilege)
  std::vector<Cost> costs_of(const State& s, int seat, int id) const {
    const Decoded& a = t_->decoded[id];
    switch (a.verb) {
      case V_WELL: {  // turn.well_cost: the well's cubes of one colour
        Cost c;
        c.cubes[a.b] = t_->well_cubes;
        return {c};
      }
      case V_TRAIN: {  // crafts.costs: training (+ production) time
        const Craft& c = t_->crafts.at(a.a);
        Cost cost;
        cost.time = a.c < 0 ? c.training_time : c.training_time + c.production_time;
        return {cost};
      }
      case V_PRODUCE: {
        Cost cost;
        cost.time = t_->crafts.at(a.a).production_time;
        return {cost};
      }
      case V_BUY:
        return {t_->crafts.at(a.a).purchase};
      case V_MILL:
        return {t_->mill_cost};
      case V_CHURCH_ENTER:
        return t_->church_enter;
      case V_COUNCIL_PLACE:  // council_chamber.costs (CNC-01)
        return t_->council_place;
      case V_COUNCIL_ADVANCE:  // CNC-02: each alternative plus the time of leaving the stage
        return t_->council_advance.at(a.a);
      case V_PRIVILEGE:
      case V_PASS:
        return {};
      case V_SERVE:  // market_day.costs (MKT-02 / MKT-03)
        return {sale_cost(a.a, is_free_sale(s, seat))};
      case V_TRAVEL:  // travel.costs (TRV-01): the path's cost
        for (const auto& [c, cost] : t_->paths.at(a.a))
          if (c == a.b) return {cost};
        throw IllegalIdError("no path for '" + t_->texts[id] + "'");
      case V_HARVEST: case V_BIRTH: case V_CALL_HOME: case V_TAKE:
        return {};
      default:
        throw NotSupportedError("paying for '" + t_->texts[id] + "' is not in the native core yet");
    }
  }

  // core._payment_options: every affordable way to pay; at the well AMB-01 decides whether
  // coins may stand in (well_coins_allowed) and how many (well_payment_allowed)
  void payment_ids(const State& s, int seat, int id, const std::vector<Cost>& alternatives, std::vector<int>& out) const {
    bool well = t_->decoded[id].verb == V_WELL;
    bool coins_ok = well ? s.amb01 != 'b' : true;
    for (size_t alt = 0; alt < alternatives.size(); ++alt) {
      for (const auto& coins : coin_splits(alternatives[alt], s.players.at(seat), coins_ok)) {
        int total = 0;
        for (int n : coins) total += n;
        if (well && !(s.amb01 == 'c' || total < t_->well_cubes)) continue;  // AMB-01 a: >= 1 real cube
        auto it = t_->pay.find({static_cast<int>(alt), coins});
        if (it == t_->pay.end()) throw IllegalIdError("a payment with no action id");
        out.push_back(it->second);
      }
    }
  }

  // core._pay_or_ask: free actions take effect at once; one way to pay is taken; several are asked
  Sub pay_or_ask(State& s, int seat, int id) const {
    auto alternatives = costs_of(s, seat, id);
    if (alternatives.empty()) return effect(s, seat, id);
    auto& options = options_buf_;  // (pay_or_ask never runs inside itself)
    options.clear();
    payment_ids(s, seat, id, alternatives, options);
    if (options.size() == 1) {
      const Decoded& chosen = t_->decoded[options[0]];
      pay(s, seat, alternatives.at(chosen.a), chosen.coins);
      return effect(s, seat, id);
    }
    Pending ask = decision(CHOOSE_PAYMENT, seat);
    ask.action = t_->texts[id];
    return some(ask);
  }

  // engine/payment.py pay (COIN-01): the cost, with coins for some cubes, to the supply; its time spent
  void pay(State& s, int seat, const Cost& cost, const std::array<int, N_CUBES>& coins) const {
    Player& p = s.players.at(seat);
    int total_coins = cost.coins;
    for (int n : coins) total_coins += n;
    if (total_coins != cost.coins) fire("COIN-01", s);  // coins stand in for some cubes
    p.grain -= cost.grain;
    p.coins -= total_coins;
    s.supply_grain += cost.grain;
    s.supply_coins += total_coins;
    for (int c = 0; c < N_CUBES; ++c) {
      int cubes = cost.cubes[c] - coins[c];
      p.cubes[c] -= cubes;
      s.supply_cubes[c] += cubes;
    }
    for (int g = 0; g < N_GOODS; ++g) {
      p.goods[g] -= cost.goods[g];
      s.supply_goods[g] += cost.goods[g];
    }
    if (cost.time) spend_time(s, seat, cost.time);
  }

  // core._effect: the (paid) action's effect, by its module (engine/spaces.py rules_of)
  Sub effect(State& s, int seat, int id) const {
    const Decoded& a = t_->decoded[id];
    Player& p = s.players.at(seat);
    switch (a.verb) {
      case V_WELL:  // turn.effect, then begin_action: the space's action, or a market day (MKT-01)
      case V_FREE:  // (a free final action, END-03, the same once its turn has begun)
        if (a.a == MARKET) {
          market_start(s, seat);
          return {};
        }
        {
          Pending next = decision(CHOOSE_ACTION, seat);
          next.space = a.a;
          return some(next);
        }
      case V_HARVEST: {  // harvest.effect: take_grain of the yield (common.take_grain)
        fire("HARV-01", s);
        fire("HARV-02", s);
        if (ev_ && p.grain + harvest_yield(s, seat) > t_->grain_capacity) fire("HARV-03", s);  // at most 5 grain
        int room = t_->grain_capacity - p.grain;
        int amount = std::max(0, std::min({harvest_yield(s, seat), room, s.supply_grain}));
        s.supply_grain -= amount;
        p.grain += amount;
        return {};
      }
      case V_BIRTH: {  // family.effect: the first unborn member to the farmyard (FAM-01)
        fire("FAM-01", s);
        auto it = std::find(p.members.begin(), p.members.end(), t_->unborn);
        *it = t_->farmyard;
        return {};
      }
      case V_CALL_HOME: {  // family.effect: the first member of that number there (FAM-02)
        fire("FAM-02", s);
        for (size_t i = 0; i < p.members.size(); ++i) {
          if (p.members[i] == a.a && t_->family_numbers.at(i) == a.b) {
            p.members[i] = t_->farmyard;
            return {};
          }
        }
        throw IllegalIdError("no member to call home");
      }
      case V_TRAIN: {  // crafts.effect: CRAFT-01 (train, then produce), CRAFT-05 (AMB-26 b: train alone)
        fire("CRAFT-01", s);
        const Craft& c = t_->crafts.at(a.a);
        p.members.at(find_member(s, seat, t_->farmyard, a.b)) = c.location;
        if (a.c >= 0)
          take_supply_good(s, seat, a.c);
        else
          fire("CRAFT-05", s);  // AMB-26 b: trained, nothing produced
        return {};
      }
      case V_PRODUCE:  // CRAFT-02
      case V_BUY:      // CRAFT-03
        fire(a.verb == V_PRODUCE ? "CRAFT-02" : "CRAFT-03", s);
        take_supply_good(s, seat, a.b);
        return {};
      case V_MILL: {  // CRAFT-04: common.take_coins, as many as the supply holds (AMB-03)
        fire("CRAFT-04", s);
        int amount = std::min(t_->mill_coins, s.supply_coins);
        s.supply_coins -= amount;
        p.coins += amount;
        return {};
      }
      case V_CHURCH_ENTER:  // church.effect (CHU-01): a farmyard member into the black bag
        fire("CHU-01", s);
        p.members.at(find_member(s, seat, t_->farmyard, a.a)) = t_->black_bag;
        return {};
      case V_COUNCIL_PLACE: {  // council_chamber.effect (CNC-01): onto stage 1, stage 1's privilege
        fire("CNC-01", s);
        p.members.at(find_member(s, seat, t_->farmyard, a.a)) = t_->council_location.at(1);
        Pending next = decision(CHOOSE_PRIVILEGE, seat);
        next.max_stage = 1;
        return some(next);
      }
      case V_COUNCIL_ADVANCE: {  // CNC-02: one stage up, a privilege of the stage reached or before
        fire("CNC-02", s);
        p.members.at(find_member(s, seat, t_->council_location.at(a.a), a.b)) = t_->council_location.at(a.a + 1);
        Pending next = decision(CHOOSE_PRIVILEGE, seat);
        next.max_stage = a.a + 1;
        return some(next);
      }
      case V_PRIVILEGE:  // CNC-03: a privilege without moving
        fire("CNC-03", s);
        return use_privilege(s, seat, a.a);
      case V_TRAVEL:
        return travel_effect(s, seat, a);
      case V_SERVE:
      case V_PASS:
        market_effect(s, seat, a);
        return {};
      default:
        throw NotSupportedError("the action '" + t_->texts[id] + "' is not in the native core yet");
    }
  }

  // engine/travel.py effect (TRV-01..08): the traveller sets out (from the farmyard for a trip
  // from the village or, AMB-17 b, a marked start; else from the origin city), arrives, and
  // the city's reward follows
  Sub travel_effect(State& s, int seat, const Decoded& a) const {
    int origin = a.a, destination = a.b;
    auto starts = marked_starts(s, seat);
    bool from_farm = origin == 0 || std::find(starts.begin(), starts.end(), origin) != starts.end();
    int where = from_farm ? t_->farmyard : t_->travel_location.at(origin);
    if (from_farm && origin != 0) fire("TRV-07", s);  // AMB-17 b: set out from a marked city
    fire(from_farm ? "TRV-01" : "TRV-02", s);
    Player& p = s.players.at(seat);
    p.members.at(find_member(s, seat, where, a.c)) = t_->travel_location.at(destination);
    int due = arrival(s, seat, destination);
    if (due == ARRIVE_NOTHING) {
      fire("TRV-03", s);  // one marker and reward per city; none once the markers are out
      return {};
    }
    if (due == ARRIVE_MARK) fire("TRV-04", s);
    if (due == ARRIVE_REMARK) fire("TRV-08", s, seat);  // AMB-19 c (2023 p. 10): a marker, a reward each arrival
    if (due == ARRIVE_AGAIN) fire("TRV-06", s);         // AMB-19 b (2023 p. 10): the reward on every arrival
    if (due == ARRIVE_MARK || due == ARRIVE_REMARK) {
      p.markers.push_back(t_->nodes.at(destination));
      std::sort(p.markers.begin(), p.markers.end());
    }
    int amount = t_->reward_amount.at(destination);
    switch (t_->reward_kind.at(destination)) {
      case REWARD_PRESTIGE:
        p.prestige += amount;
        return {};
      case REWARD_COINS: {  // common.take_coins: as many as the supply holds (AMB-03)
        int taken = std::min(amount, s.supply_coins);
        s.supply_coins -= taken;
        p.coins += taken;
        return {};
      }
      case REWARD_CUBES_OF_CHOICE: {
        Pending next = decision(CHOOSE_SUPPLY_CUBE, seat);
        next.remaining = amount;
        return some(next);
      }
      default:
        throw IllegalIdError("'" + t_->nodes.at(destination) + "' has no reward");
    }
  }

  // engine/council_chamber.py use_privilege (CNC-05..08): the next-start marker if nobody
  // holds it (AMB-13 a), cubes of choice, a good of choice, a coin for prestige
  Sub use_privilege(State& s, int seat, int stage) const {
    switch (stage) {
      case 1:  // CNC-05
        fire("CNC-05", s);
        if (s.next_start_holder == NONE) s.next_start_holder = seat;
        return {};
      case 2: {  // CNC-06
        fire("CNC-06", s);
        Pending next = decision(CHOOSE_SUPPLY_CUBE, seat);
        next.remaining = t_->privilege_cubes;
        return some(next);
      }
      case 3: {  // CNC-07
        fire("CNC-07", s);
        Pending next = decision(CHOOSE_SUPPLY_GOOD, seat);
        next.remaining = t_->privilege_goods;
        return some(next);
      }
      case 4: {  // CNC-08
        fire("CNC-08", s);
        Player& p = s.players.at(seat);
        p.coins -= t_->privilege_coin_price;
        s.supply_coins += t_->privilege_coin_price;
        p.prestige += t_->privilege_prestige;
        return {};
      }
      default:
        throw IllegalIdError("no privilege of stage " + std::to_string(stage));
    }
  }

  // engine/common.py find_member: the index of the seat's first member of `number` at `location`
  size_t find_member(const State& s, int seat, int location, int number) const {
    const auto& members = s.players.at(seat).members;
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == location && t_->family_numbers.at(i) == number) return i;
    throw IllegalIdError("no member numbered " + std::to_string(number) + " at " + t_->locations[location]);
  }

  // engine/common.py take_good: a good from the supply; nothing if it is out (AMB-03)
  static void take_supply_good(State& s, int seat, int good) {
    if (s.supply_goods[good] == 0) return;
    s.supply_goods[good] -= 1;
    s.players.at(seat).goods[good] += 1;
  }

  void settle(State& s, Sub sub) const {
    while (true) {
      if (sub.has) {
        s.pending = sub.p;
        if (is_chance_kind(s.pending.kind) || s.pending.kind == GAME_OVER) return;
        auto& options = settle_buf_;
        legal_into(s, options);  // NotSupportedError for a step whose generator is not ported
        if (options.size() > 1) return;
        if (options.empty()) {
          if (s.pending.kind == CHOOSE_SUPPLY_CUBE || s.pending.kind == CHOOSE_SUPPLY_GOOD) {
            sub = {};  // AMB-03: the supply is out; nothing to take
            continue;
          }
          throw IllegalIdError(std::string("no legal action at ") + KIND_NAMES[s.pending.kind]);
        }
        int only = options[0];
        if (ev_) ev_->open(only, true, s);  // core._settle: a decision the engine takes itself
        sub = perform(s, only);
        continue;
      }
      sub = next_step(s);
    }
  }

  // engine/core.py _next_step: only the end of a turn without owed deaths so far.
  Sub next_step(State& s) const {
    if (s.market_day) {
      if (!s.market_day->closed) {
        int n = static_cast<int>(s.players.size());
        for (int k = 0; k < n; ++k) {  // DEATH-06: deaths during a market day, at once
          int seat = (s.market_day->current + k) % n;
          if (s.deaths_owed.at(seat)) {
            fire("DEATH-06", s, seat);  // during a market day: at once
            Sub dying;
            if (!resolve_deaths(s, seat, dying)) return dying;
          }
        }
        bool no_customers = true;  // market_day.is_over (MKT-05)
        for (int tile : s.market_available) no_customers = no_customers && tile == NONE;
        if (!no_customers && static_cast<int>(s.market_day->passed.size()) != n) {
          if (solo::is_carla(s, s.market_day->current)) {  // solo: Carla's chance is forced
            solo::market_turn(s, ev_);
            return {};
          }
          return some(decision(MARKET_CHOICE, s.market_day->current));
        }
        fire("MKT-05", s);
        market_close(s);
      }
      if (!s.customer_pile.empty()) {  // market_day.next_refill
        for (size_t i = 0; i < s.market_waiting.size(); ++i) {
          if (s.market_waiting[i] == NONE) {
            Pending refill;
            refill.kind = REFILL_DRAW;
            refill.position = static_cast<int>(i);
            return some(refill);
          }
        }
      }
      // market_day.finish: deaths held from before the day are owed again (AMB-27)
      int held = s.market_day->held_deaths;
      if (held) {
        int trigger = s.market_day->trigger;
        s.deaths_owed.at(trigger) = cap_owed(s, s.deaths_owed.at(trigger), held);
      }
      s.market_day.reset();
      return {};
    }
    if (s.turn != NONE) {
      int seat = s.turn;
      if (s.carla && s.carla->action_waits != NONE) {  // solo, AMB-36 b: Carla's steps, then the action
        auto owed = solo::next_step(s, *t_, *this, ev_);
        if (owed) return Sub{owed->has, owed->p};
        int held = s.carla->action_waits;
        s.carla->action_waits = NONE;  // carla.release
        return begin_action(s, seat, held);
      }
      Sub dying;
      if (!resolve_deaths(s, seat, dying)) return dying;
      if (s.carla) {  // solo: Carla's take, reaction and death
        auto owed = solo::next_step(s, *t_, *this, ev_);
        if (owed) return Sub{owed->has, owed->p};
      }
      bool took_last_cube = s.turn_took_last_cube;
      s.turn = NONE;
      s.turn_took_last_cube = false;
      return end_of_turn(s, seat, took_last_cube);
    }
    if (s.mass) return end_of_mass(s);
    throw IllegalIdError("no turn, market day or mass is in progress");
  }

  // engine/end_of_game.py final_order (END-02 / END-04, AMB-09): who still acts once the end
  // is triggered; in a game of several players the market player is the seat whose turn it is
  std::vector<int> final_order(const State& s, int seat) const {
    int n = static_cast<int>(s.players.size());
    int trigger = s.end_triggered_by;
    seat = solo::market_player(s, seat);  // (solo: the market day's player, else the end's trigger)
    std::vector<int> order;
    if (trigger == seat) {  // END-02: every other player once, clockwise
      for (int k = 1; k < n; ++k) order.push_back((seat + k) % n);
      if (s.carla) solo::final_seats(s, order, ev_);  // SOLO-28: Carla takes no final action
      return order;
    }
    int first;  // END-04: every player once; AMB-09 a: from the market player's left, b (END-07):
    switch (s.amb09) {  // from the left of the player who triggered it, c (END-07): from the start player
      case 'a': first = seat + 1; break;
      case 'b': first = trigger + 1; break;
      case 'c': first = s.start_player; break;
      default: throw NotSupportedError(std::string("AMB-09 reading '") + s.amb09 + "' is not in the native core");
    }
    for (int k = 0; k < n; ++k) order.push_back((first + k) % n);
    if (s.carla) solo::final_seats(s, order, ev_);  // SOLO-28: Carla takes no final action
    return order;
  }

  // engine/end_of_game.py end_of_turn: the final actions once the end is triggered (END-02,
  // END-04, END-07 under AMB-09 b/c), the round mass before them (AMB-33 b/c), the next final
  // action, the final mass (END-06), the round's mass once the last cube is taken, or the next seat
  // `took_last_cube`: the turn just ended was a final action that emptied the board (AMB-45)
  Sub end_of_turn(State& s, int seat, bool took_last_cube) const {
    if (s.end_triggered_by != NONE && !s.final_turns) {
      if (ev_) {
        bool by_market_player = s.end_triggered_by == solo::market_player(s, seat);
        fire(by_market_player ? "END-02" : "END-04", s, seat);
        if (!by_market_player && s.amb09 != 'a') fire("END-07", s);  // AMB-09 b / c: another first player
      }
      s.final_turns = final_order(s, seat);
      bool board_empty = true;
      for (auto& space : s.spaces)
        for (int n : space) board_empty = board_empty && n == 0;
      if (s.amb33 != 'a' && board_empty) {  // round_mass_first (AMB-33 b/c): the round still ends with its mass
        fire("ROUND-01", s);
        fire(s.amb33 == 'b' ? "END-08" : "END-09", s);  // b: then the board is reseeded; c: no reseeding
        return mass_start(s, false);
      }
    }
    if (s.final_turns) {
      if (took_last_cube && s.amb45 == 'b') {  // round_mass_in_final_actions (AMB-45 b: ROUND-01, END-11):
        fire("ROUND-01", s);
        fire("END-11", s);
        Sub held = mass_start(s, false);  // the round's mass, no reseeding; the final actions left,
        s.mass->in_final_actions = true;  // then the final mass
        return held;
      }
      if (s.final_turns->empty()) {
        fire("END-06", s);  // the final mass, then the final scoring
        return mass_start(s, true);
      }
      int following = s.final_turns->front();
      s.final_turns->erase(s.final_turns->begin());
      return some(decision(CHOOSE_TURN, following));
    }
    bool empty = true;
    for (auto& space : s.spaces)
      for (int n : space) empty = empty && n == 0;
    if (empty) {
      fire("ROUND-01", s);  // the last cube taken, the round ends with a mass
      return mass_start(s, false);
    }
    if (s.carla) {
      fire("SOLO-07", s);  // the player takes every turn
      return some(decision(CHOOSE_TURN, solo::PLAYER));
    }
    return some(decision(CHOOSE_TURN, (seat + 1) % static_cast<int>(s.players.size())));
  }
};

std::pair<long long, long long> Game::playout(unsigned long long seed, long long max_steps) {
  return playout_impl(seed, max_steps);
}

// --- building the tables from the Python loader's data --------------------------------

// A cost as the Python side hands it over: (time, grain, coins, cubes by Cube, goods by Good).
using CostTuple = std::tuple<int, int, int, std::vector<int>, std::vector<int>>;
// A crafts building: (building, training time, production time, purchase, goods' names).
using CraftTuple = std::tuple<std::string, int, int, CostTuple, std::vector<std::string>>;
// A city of the travel map: (id, reward kind's value, amount); a path: (a, b, cost).
using CityTuple = std::tuple<std::string, std::string, int>;
using PathTuple = std::tuple<std::string, std::string, CostTuple>;

Cost cost_of(const CostTuple& c) {
  Cost out;
  out.time = std::get<0>(c);
  out.grain = std::get<1>(c);
  out.coins = std::get<2>(c);
  const auto& cubes = std::get<3>(c);
  const auto& goods = std::get<4>(c);
  if (cubes.size() != N_CUBES || goods.size() != N_GOODS)
    throw std::invalid_argument("a cost needs one count per cube colour and per good");
  std::copy(cubes.begin(), cubes.end(), out.cubes.begin());
  std::copy(goods.begin(), goods.end(), out.goods.begin());
  return out;
}

std::shared_ptr<Tables> make_tables(const std::vector<std::string>& universe, int well_cubes, int max_players,
                                    const std::vector<int>& family_numbers, const std::map<std::string, int>& numbers,
                                    const std::vector<int>& church_step_grain,
                                    const std::map<int, std::vector<int>>& cubes_per_space,
                                    const std::map<int, std::vector<int>>& cubes_added,
                                    const std::vector<CraftTuple>& crafts, const CostTuple& mill_cost,
                                    const std::vector<CostTuple>& church_enter,
                                    const std::map<int, std::vector<int>>& chronicle_open,
                                    const std::map<int, int>& graveyard_open,
                                    const std::vector<CostTuple>& council_place,
                                    const std::vector<CostTuple>& council_advance,
                                    const std::vector<int>& council_advance_time, const std::string& village,
                                    const std::vector<CityTuple>& cities, const std::vector<PathTuple>& paths,
                                    const std::map<int, CostTuple>& demand, const CostTuple& later_sale,
                                    const std::map<std::string, std::vector<int>>& scoring,
                                    const std::map<int, int>& customer_points,
                                    const std::map<int, std::pair<int, int>>& market_rows) {
  auto t = std::make_shared<Tables>();
  // what only the state invariants read (checks.cpp)
  t->supply_coins = numbers.at("supply_coins");
  t->supply_grain = numbers.at("supply_grain");
  t->goods_each = numbers.at("goods_each");
  t->influence_cubes_each = numbers.at("influence_cubes_each");
  t->plague_cubes = numbers.at("plague_cubes");
  t->monks = numbers.at("monks");
  t->min_players = numbers.at("min_players");
  t->market_rows = market_rows;
  t->score_travel = scoring.at("travel");
  t->score_church = scoring.at("church");
  t->score_council = scoring.at("council");
  t->score_chronicle = scoring.at("chronicle");
  t->score_coin = scoring.at("coin").at(0);
  t->tie_breakers = scoring.at("tie_breakers");
  if (t->score_travel.empty() || t->score_chronicle.empty())
    throw std::invalid_argument("score_travel and score_chronicle need at least one entry");
  for (const auto& [tile, points] : customer_points) t->customer_points.emplace(tile, points);
  for (const auto& [tile, cost] : demand) t->demand.emplace(tile, cost_of(cost));
  t->later_sale = cost_of(later_sale);
  // the travel map (engine/travel_map.py): the village, the cities, the paths (the last of
  // two paths between the same nodes wins, as networkx's Graph.add_edge does)
  t->travel_markers = numbers.at("travel_markers");
  t->nodes.push_back(village);
  t->node_ids.emplace(village, 0);
  t->reward_kind.push_back(REWARD_NONE);
  t->reward_amount.push_back(0);
  t->travel_location.push_back(-1);
  for (const auto& [id, reward, amount] : cities) {
    if (t->node_ids.count(id)) throw std::invalid_argument("the city '" + id + "' is on the map twice");
    t->node_ids.emplace(id, static_cast<int>(t->nodes.size()));
    t->nodes.push_back(id);
    if (reward == "prestige")
      t->reward_kind.push_back(REWARD_PRESTIGE);
    else if (reward == "cubes_of_choice")
      t->reward_kind.push_back(REWARD_CUBES_OF_CHOICE);
    else if (reward == "coins")
      t->reward_kind.push_back(REWARD_COINS);
    else
      throw std::invalid_argument("unknown city reward '" + reward + "'");
    t->reward_amount.push_back(amount);
    t->travel_location.push_back(t->location("travel:" + id));
  }
  t->paths.resize(t->nodes.size());
  auto node = [&](const std::string& id) {
    auto it = t->node_ids.find(id);
    if (it == t->node_ids.end()) throw std::invalid_argument("a path names '" + id + "', which is not on the map");
    return it->second;
  };
  for (const auto& [a, b, cost] : paths) {
    int x = node(a), y = node(b);
    for (auto [from, to] : {std::pair<int, int>{x, y}, std::pair<int, int>{y, x}}) {
      auto& out = t->paths[from];
      auto same = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == to; });
      if (same != out.end())
        same->second = cost_of(cost);
      else
        out.emplace_back(to, cost_of(cost));
    }
  }
  for (auto& out : t->paths) {  // adjacent: the cities (never the village), sorted by id
    out.erase(std::remove_if(out.begin(), out.end(), [](const auto& e) { return e.first == 0; }), out.end());
    std::sort(out.begin(), out.end(), [&](const auto& l, const auto& r) { return t->nodes[l.first] < t->nodes[r.first]; });
  }
  // the council chamber: council_chamber._advance_costs (CNC-02) adds the time of leaving a stage
  t->council_stages = numbers.at("council_stages");
  t->privilege_coin_price = numbers.at("privilege_coin_price");
  t->privilege_prestige = numbers.at("privilege_prestige");
  t->privilege_cubes = numbers.at("privilege_cubes");
  t->privilege_goods = numbers.at("privilege_goods");
  for (const auto& c : council_place) t->council_place.push_back(cost_of(c));
  t->council_advance.resize(t->council_stages > 0 ? t->council_stages : 1);
  for (int stage = 1; stage < t->council_stages; ++stage) {
    if (static_cast<int>(council_advance_time.size()) < stage)
      throw std::invalid_argument("council_advance_time needs one time per stage a member can leave");
    for (const auto& c : council_advance) {
      Cost alt = cost_of(c);
      alt.time += council_advance_time[stage - 1];
      t->council_advance[stage].push_back(alt);
    }
  }
  t->council_location.assign(1, -1);
  for (int stage = 1; stage <= t->council_stages; ++stage)
    t->council_location.push_back(t->location("council:" + std::to_string(stage)));
  t->mill_cost = cost_of(mill_cost);
  for (const auto& c : church_enter) t->church_enter.push_back(cost_of(c));
  for (const auto& [n, v] : chronicle_open) {
    if (v.size() != N_CATEGORIES) throw std::invalid_argument("chronicle_open needs one count per category");
    std::array<int, N_CATEGORIES> a{};
    std::copy(v.begin(), v.end(), a.begin());
    t->chronicle_open[n] = a;
  }
  t->graveyard_open = graveyard_open;
  for (int c = 0; c < N_CATEGORIES; ++c)
    t->chronicle_location[c] = t->location(std::string("chronicle:") + CATEGORY_NAMES[c]);
  t->graveyard = t->location("graveyard");
  t->removed = t->location("removed");
  for (const auto& [building, training, production, purchase, goods] : crafts) {
    Craft c;
    c.building = building;
    c.location = t->location("craft:" + building);
    c.training_time = training;
    c.production_time = production;
    c.purchase = cost_of(purchase);
    for (const auto& g : goods) c.goods.push_back(index_of(GOOD_NAMES, g, "good"));
    t->crafts.push_back(std::move(c));
  }
  auto craft_index = [&](const std::string& building) {
    for (size_t i = 0; i < t->crafts.size(); ++i)
      if (t->crafts[i].building == building) return static_cast<int>(i);
    throw std::invalid_argument("an action names the building '" + building + "', which the data has not");
  };
  auto good_index = [&](const Craft& c, int good) {
    auto it = std::find(c.goods.begin(), c.goods.end(), good);
    if (it == c.goods.end()) throw std::invalid_argument("an action names a good its building does not make");
    return static_cast<int>(it - c.goods.begin());
  };
  t->n_actions = static_cast<int>(universe.size());
  t->well_cubes = well_cubes;
  t->max_players = max_players;
  t->family_numbers = family_numbers;
  t->grain_capacity = numbers.at("grain_capacity");
  t->harvest_base = numbers.at("harvest_base");
  t->harvest_horse_plow = numbers.at("harvest_horse_plow");
  t->harvest_ox_plow = numbers.at("harvest_ox_plow");
  t->mass_coin_price = numbers.at("mass_coin_price");
  t->mill_coins = numbers.at("mill_coins");
  t->church_stages = numbers.at("church_stages");
  t->lifetime_track_length = numbers.at("lifetime_track_length");
  t->plague_time = numbers.at("plague_time");
  t->church_step_grain = church_step_grain;
  t->mass_pieces = numbers.at("mass_pieces");
  t->majority_prestige = numbers.at("majority_prestige");
  t->church_location.assign(1, -1);
  for (int stage = 1; stage <= t->church_stages; ++stage)
    t->church_location.push_back(t->location("church:" + std::to_string(stage)));
  for (const char* place : {"unborn", "farmyard", "black-bag"}) t->location(place);
  for (auto& [n, v] : cubes_per_space) {
    if (v.size() != N_SPACES) throw std::invalid_argument("cubes_per_space needs one count per action space");
    std::array<int, N_SPACES> a{};
    std::copy(v.begin(), v.end(), a.begin());
    t->cubes_per_space[n] = a;
  }
  for (auto& [n, v] : cubes_added) {
    if (v.size() != N_CUBES) throw std::invalid_argument("cubes_added needs one count per cube colour");
    std::array<int, N_CUBES> a{};
    std::copy(v.begin(), v.end(), a.begin());
    t->cubes_added[n] = a;
  }
  for (auto& row : t->take) row.fill(-1);
  for (auto& row : t->well) row.fill(-1);
  t->free_.fill(-1);
  t->pick_cube.fill(-1);
  t->draw_cube.fill(-1);
  t->pick_good.fill(-1);
  t->decoded.resize(universe.size());
  t->texts = universe;
  for (size_t i = 0; i < universe.size(); ++i) {
    int id = static_cast<int>(i);
    t->ids.emplace(universe[i], id);
    auto w = words(universe[i]);
    Decoded& d = t->decoded[i];
    const std::string& verb = w.at(0);
    if (verb == "take") {
      d = {V_TAKE, index_of(SPACE_NAMES, w.at(1), "space"), index_of(CUBE_NAMES, w.at(2), "cube")};
      t->take[d.a][d.b] = id;
    } else if (verb == "well") {
      d = {V_WELL, index_of(SPACE_NAMES, w.at(1), "space"), index_of(CUBE_NAMES, w.at(2), "cube")};
      t->well[d.a][d.b] = id;
    } else if (verb == "free") {
      d = {V_FREE, index_of(SPACE_NAMES, w.at(1), "space"), 0};
      t->free_[d.a] = id;
    } else if (verb == "skip") {
      d = {V_SKIP, 0, 0};
      t->skip = id;
    } else if (verb == "cube") {
      d = {V_PICK_CUBE, index_of(CUBE_NAMES, w.at(1), "cube"), 0};
      t->pick_cube[d.a] = id;
    } else if (verb == "good") {
      d = {V_PICK_GOOD, index_of(GOOD_NAMES, w.at(1), "good"), 0};
      t->pick_good[d.a] = id;
    } else if (verb == "draw-cube") {
      d = {V_DRAW_CUBE, index_of(CUBE_NAMES, w.at(1), "cube"), 0};
      t->draw_cube[d.a] = id;
    } else if (verb == "draw-customer") {
      d = {V_DRAW_CUSTOMER, std::stoi(w.at(1)), 0};
      t->draw_customer[d.a] = id;
    } else if (verb == "draw-monk") {
      d = {V_DRAW_MONK, 0, 0};
      t->draw_monk = id;
    } else if (verb == "harvest") {
      d = {V_HARVEST, 0, 0};
      t->harvest = id;
    } else if (verb == "birth") {
      d = {V_BIRTH, 0, 0};
      t->birth = id;
    } else if (verb == "call-home") {
      d = {V_CALL_HOME, t->location(w.at(1)), std::stoi(w.at(2))};
      t->call_home[d.a * 1000 + d.b] = id;
    } else if (verb == "die") {
      d = {V_DIE, t->location(w.at(1)), 0};
      t->die[d.a] = id;
    } else if (verb == "buy-from-bag") {
      d = {V_BUY_FROM_BAG, std::stoi(w.at(1)), 0};
      t->buy_from_bag[d.a] = id;
    } else if (verb == "church-step") {
      d = {V_CHURCH_STEP, std::stoi(w.at(1)), std::stoi(w.at(2))};
      t->church_step[d.a * 1000 + d.b] = id;
    } else if (verb == "train") {
      int k = craft_index(w.at(1));
      Craft& c = t->crafts[k];
      int number = std::stoi(w.at(2));
      if (w.size() == 3) {
        d = {V_TRAIN, k, number};
        c.train_alone[number] = id;
      } else {
        d = {V_TRAIN, k, number, index_of(GOOD_NAMES, w.at(3), "good")};
        auto& row = c.train[number];
        row.resize(c.goods.size(), -1);
        row[good_index(c, d.c)] = id;
      }
    } else if (verb == "produce" || verb == "buy") {
      int k = craft_index(w.at(1));
      Craft& c = t->crafts[k];
      d = {verb == "produce" ? V_PRODUCE : V_BUY, k, index_of(GOOD_NAMES, w.at(2), "good")};
      auto& row = verb == "produce" ? c.produce : c.buy;
      row.resize(c.goods.size(), -1);
      row[good_index(c, d.b)] = id;
    } else if (verb == "mill") {
      d = {V_MILL, 0, 0};
      t->mill = id;
    } else if (verb == "church") {
      d = {V_CHURCH_ENTER, std::stoi(w.at(1)), 0};
      t->church_enter_ids[d.a] = id;
    } else if (verb == "pay") {  // "pay <alternative>" or "pay <alternative> coins=<colour>:<n>,..."
      d = {V_PAY, std::stoi(w.at(1)), 0};
      if (w.size() > 2) {
        std::string spec = w.at(2).substr(w.at(2).find('=') + 1);
        std::istringstream parts(spec);
        std::string part;
        while (std::getline(parts, part, ',')) {
          auto colon = part.find(':');
          d.coins[index_of(CUBE_NAMES, part.substr(0, colon), "cube")] = std::stoi(part.substr(colon + 1));
        }
      }
      t->pay[{d.a, d.coins}] = id;
    } else if (verb == "council-place") {
      d = {V_COUNCIL_PLACE, std::stoi(w.at(1)), 0};
      t->council_place_ids[d.a] = id;
    } else if (verb == "council-advance") {
      d = {V_COUNCIL_ADVANCE, std::stoi(w.at(1)), std::stoi(w.at(2))};
      t->council_advance_ids[d.a * 1000 + d.b] = id;
    } else if (verb == "privilege") {
      d = {V_PRIVILEGE, std::stoi(w.at(1)), 0};
      t->privilege_ids[d.a] = id;
    } else if (verb == "travel") {  // "travel <origin> <destination> <number>"
      auto origin = t->node_ids.find(w.at(1)), destination = t->node_ids.find(w.at(2));
      if (origin == t->node_ids.end() || destination == t->node_ids.end())
        throw std::invalid_argument("a journey names a place that is not on the map: " + universe[i]);
      d = {V_TRAVEL, origin->second, destination->second, std::stoi(w.at(3))};
      t->travel_ids[(static_cast<long long>(d.a) * 1000 + d.b) * 1000 + d.c] = id;
    } else if (verb == "serve") {
      d = {V_SERVE, std::stoi(w.at(1)), 0};
      t->serve_ids[d.a] = id;
    } else if (verb == "pass") {
      d = {V_PASS, 0, 0};
      t->pass = id;
    } else if (verb == "draw-member") {
      d = {V_DRAW_MEMBER, std::stoi(w.at(1)), std::stoi(w.at(2))};
      t->draw_member[d.a * 100000 + d.b] = id;
    }
  }
  return t;
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "The native core of village-rules (C++17): see village_rules.native and docs/native.md.";
  static py::exception<NotSupportedError> not_supported(m, "NotSupportedError", PyExc_RuntimeError);
  static py::exception<IllegalIdError> illegal(m, "IllegalIdError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NotSupportedError& e) {
      py::set_error(not_supported, e.what());
    } catch (const IllegalIdError& e) {
      py::set_error(illegal, e.what());
    }
  });
  py::class_<Tables, std::shared_ptr<Tables>>(m, "Tables")
      .def_property_readonly("n_actions", [](const Tables& t) { return t.n_actions; })
      .def_property_readonly(
          "observes", [](const Tables& t) { return t.observation != nullptr; },
          "Whether the observation tensor's data was added (set_observation_tables).");
  m.def("make_tables", &make_tables, py::arg("universe"), py::arg("well_cubes"), py::arg("max_players"),
        py::arg("family_numbers"), py::arg("numbers"), py::arg("church_step_grain"), py::arg("cubes_per_space"),
        py::arg("cubes_added"), py::arg("crafts"), py::arg("mill_cost"), py::arg("church_enter"),
        py::arg("chronicle_open"), py::arg("graveyard_open"), py::arg("council_place"),
        py::arg("council_advance"), py::arg("council_advance_time"), py::arg("village"), py::arg("cities"),
        py::arg("paths"), py::arg("demand"), py::arg("later_sale"), py::arg("scoring"), py::arg("customer_points"),
        py::arg("market_rows"));
  village::solo::bind(m);
  village::observation::bind(m);
  py::class_<Game>(m, "Game")
      .def(py::init<std::shared_ptr<Tables>>())
      .def("load", &Game::load, py::arg("state"), py::arg("rules_json"), py::arg("readings"))
      .def("to_json", &Game::to_json)
      .def(
          "copy", [](const Game& game) { return Game(game); },
          "A copy of this game: the same state and tables, stepped apart from this one.")
      .def("is_terminal", &Game::is_terminal)
      .def("is_chance", &Game::is_chance)
      .def("current_player", &Game::current_player)
      .def("round", [](const Game& g) { return g.explore_root().round; },
           "The state's round counter (the shrinker's rounds, proofs/search/native_judge.py).")
      .def("turn_begins", [](const Game& g) { return g.explore_root().pending.kind == CHOOSE_TURN; },
           "Whether a turn choice is pending: a turn begins here (the shrinker's turns).")
      .def("legal", &Game::legal)
      .def("chance", &Game::chance)
      .def("apply", &Game::apply, py::arg("id"))
      .def("apply_steps", &Game::apply_steps, py::arg("id"),
           "apply, with the step's sub-steps (engine/core.py apply_steps): (action id, forced, events), each "
           "event (rule, seat, turn_of, market_player, mass, end_by, round), None where the reference has None.")
      .def("apply_judged", &Game::apply_judged, py::arg("id"), py::arg("values"),
           "apply_steps, with the catalogue's STEP queries and monitors judged after every sub-step "
           "(predicates.hpp, monitors.hpp): per sub-step (action id, forced, STEP queries held as bits in "
           "STEP_QUERIES' order, every monitor's value after it, monitors held as bits in MONITORS' order); "
           "`values`: each monitor's value before the step (None or a tuple of ints).")
      .def("judge_sub", &Game::judge_sub, py::arg("id"), py::arg("after"), py::arg("events"), py::arg("values"),
           "One sub-step handed in whole (this game's state, the action id, `after`'s state, the rule events as "
           "apply_steps gives them), judged as apply_judged judges each: (STEP queries held as bits, every "
           "monitor's value after it, monitors held as bits); `values`: each monitor's value before it.")
      .def("set_predicate_plant", &Game::set_predicate_plant, py::arg("name"),
           "A planted bug (tests): a native predicate or monitor made to differ (PREDICATE_PLANTS); '' none.")
      .def("set_event_plant", &Game::set_event_plant, py::arg("name"),
           "A planted bug (tests): 'drop MKT-01' leaves that rule's events out of apply_steps; '' none.")
      .def("playout", &Game::playout, py::arg("seed"), py::arg("max_steps"))
      .def("scores", &Game::scores)
      .def("winners", &Game::winners)
      .def("set_debug_swap", &Game::set_debug_swap, py::arg("on"))
      .def("observation", &Game::observation, py::arg("observer"), py::arg("plant") = "",
           "The observation tensor of the current state as seat `observer` sees it (observation.cpp): the "
           "bytes of little-endian float32, adapters.observation_array's tensor float for float. `plant` "
           "(tests): 'customer pile forgets its last tile' writes a difference on purpose.")
      .def("violations", &Game::violations, py::arg("plant") = "",
           "Every violated state invariant of the current state (checks.cpp): (invariant, component, "
           "expected, actual), as village_rules.checks.invariants.state_violations(state) lists them.")
      .def("transition_violations", &Game::transition_violations, py::arg("id"), py::arg("after"),
           py::arg("plant") = "",
           "Every violated transition invariant of the step from this game's state by the action `id` to "
           "`after`'s state (checks.cpp): (invariant, component, expected, actual), as "
           "village_rules.checks.invariants.transition_violations(before, action, after) lists them.");
  // the native explorer (explore.cpp): every state reachable from the roots, counted
  village::explore::bind_checkpoints(m);
  m.def(
      "explore",
      [](const std::vector<Game*>& roots, long long max_states, const std::string& plant, bool check_json,
         std::function<void(long long, long long, long long, long long)> progress, int workers, bool check,
         std::function<bool()> stop, const village::explore::Checkpointing* checkpoint, bool queries,
         const std::vector<std::string>& monitors) {
        namespace ex = village::explore;
        ex::Options options;
        options.max_states = max_states;
        options.plant = ex::plant_of(plant);
        options.check_json = check_json;
        options.progress = std::move(progress);
        options.workers = workers;
        options.check = check;
        options.queries = queries;
        for (const std::string& monitor : monitors) {  // monitors by their queries' names (monitors.hpp MONITOR_NAMES)
          namespace pr = village::predicates;
          auto at = std::find(pr::MONITOR_NAMES.begin(), pr::MONITOR_NAMES.end(), monitor);
          if (at == pr::MONITOR_NAMES.end()) throw std::invalid_argument("no native monitor '" + monitor + "'");
          uint32_t bit = 1u << (at - pr::MONITOR_NAMES.begin());
          if (options.monitors & bit) throw std::invalid_argument("monitor '" + monitor + "' given twice");
          options.monitors |= bit;
        }
        if (checkpoint) options.checkpoint = *checkpoint;
        if (stop)  // between batches, on this (the main) thread: Python's signal handlers run first
          options.stop = [stop]() {
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            return stop();
          };
        std::vector<const ex::Core*> cores(roots.begin(), roots.end());
        return ex::to_dict(ex::run(cores, options));
      },
      py::arg("roots"), py::arg("max_states"), py::arg("plant") = "", py::arg("check_json") = false,
      py::arg("progress") = py::none(), py::arg("workers") = 1, py::arg("check") = false,
      py::arg("stop") = py::none(), py::arg("checkpoint") = py::none(), py::arg("queries") = false,
      py::arg("monitors") = std::vector<std::string>{});
  village::explore::bind_seen(m);
  // a shard of a run over processes (explore.hpp Shard; explore/native_shards.py)
  py::class_<village::explore::Shard>(m, "Shard")
      .def(py::init([](const std::vector<Game*>& roots, int owner, int shards, bool check) {
             std::vector<const village::explore::Core*> cores(roots.begin(), roots.end());
             return std::make_unique<village::explore::Shard>(cores, owner, shards, check);
           }),
           py::arg("roots"), py::arg("owner"), py::arg("shards"), py::arg("check") = false)
      .def("seed", &village::explore::Shard::seed)
      .def("expand",
           [](village::explore::Shard& shard) {
             std::vector<std::string> boxes;
             {
               py::gil_scoped_release free;
               boxes = shard.expand();
             }
             py::list out;
             for (const std::string& box : boxes) out.append(py::bytes(box));
             return out;
           })
      .def("keep",
           [](village::explore::Shard& shard, const std::vector<py::bytes>& raw) {
             std::vector<std::string> boxes(raw.begin(), raw.end());
             py::gil_scoped_release free;
             return shard.keep(boxes);
           },
           py::arg("boxes"))
      .def("advance", &village::explore::Shard::advance)
      .def("parent_of", &village::explore::Shard::parent_of, py::arg("local"))
      .def("replay", &village::explore::Shard::replay, py::arg("root"), py::arg("moves"))
      .def("counts", &village::explore::Shard::counts)
      .def_property_readonly_static("ROOT_ID", [](py::object) { return village::explore::Shard::ROOT_ID; });
  {  // the catalogue's queries (predicates.hpp, monitors.hpp): their names, the monitors' starts
    namespace pr = village::predicates;
    py::tuple steps(static_cast<size_t>(pr::N_STEP_QUERIES)), monitors(static_cast<size_t>(pr::N_MONITORS)),
        starts(static_cast<size_t>(pr::N_MONITORS)), plants(pr::PLANT_NAMES.size());
    for (int q = 0; q < pr::N_STEP_QUERIES; ++q) steps[q] = py::str(pr::STEP_NAMES[q]);
    for (int k = 0; k < pr::N_MONITORS; ++k) {
      monitors[k] = py::str(pr::MONITOR_NAMES[k]);
      starts[k] = Game::py_value(pr::start(k));
    }
    for (size_t k = 0; k < pr::PLANT_NAMES.size(); ++k) plants[k] = py::str(pr::PLANT_NAMES[k]);
    m.attr("STEP_QUERIES") = steps;
    m.attr("MONITORS") = monitors;
    m.attr("MONITOR_STARTS") = starts;
    m.attr("PREDICATE_PLANTS") = plants;
  }
  m.def(
      "set_high_scores", [](Tables& t, const std::map<int, int>& bars) { t.high_score = bars; },
      py::arg("tables"), py::arg("high_scores"),
      "Query 13's lower side of a high score by player count (proofs/catalogue HIGH_SCORE), for these tables.");
  m.def(
      "fingerprint", [](const Game& game) { return village::explore::fingerprint(game.explore_root()); },
      py::arg("game"));
}
