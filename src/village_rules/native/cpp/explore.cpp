// The native explorer's breadth-first loop (explore.hpp; issue 40, item 1), a reading of
// village_rules/explore/search.py explore and expand with check=False: the same roots (the
// set-ups, loaded from the reference's JSON), the same edges (every legal id, every chance
// outcome), the same identity of a state (everything but the round counter) and the same
// counts. A state's identity here is a 64-bit fingerprint of the fields the canonical JSON
// writes (`fingerprint`), kept in a compact, quotiented set of fingerprints (`SeenSet`).
//
// What the rest of issue 40 would need of this loop: the invariants and the STEP queries
// need the state before and after every edge (here `parent` and `child` in `run`) handed to
// checks ported to C++ or called back in Python; the witnesses need each state's parent id
// and move index (two arrays beside the levels, as search.py's _Parents); checkpoints need
// the seen set's keys (`SeenSet::keys`) and the frontier's states written out (the JSON of each, or a
// binary form); Ray workers need the fingerprint's partition of the states (its high bits
// are as uniform as its low bits).

#include "explore.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace py = pybind11;

namespace village::explore {

namespace {

// splitmix64's finaliser: a bijection of 64-bit words with full avalanche
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A state's words folded in order, each through the mixer: a sequence's prefix-free encoding
// (every list and string is preceded by its length, every optional by whether it is there)
// so two different states give two different word sequences.
struct Hasher {
  uint64_t h = 0x6a09e667f3bcc908ULL;  // a fixed start (sqrt(2)'s fraction, SHA-512's first word)
  void word(uint64_t w) { h = mix(h ^ w); }
  void num(long long v) { word(static_cast<uint64_t>(v)); }
  void flag(bool b) { word(b ? 1 : 2); }
  void ints(const std::vector<int>& xs) {
    num(static_cast<long long>(xs.size()));
    for (int x : xs) num(x);
  }
  template <size_t N>
  void tally(const std::array<int, N>& xs) {
    for (int x : xs) num(x);
  }
  void text(const std::string& s) {
    num(static_cast<long long>(s.size()));
    for (size_t i = 0; i < s.size(); i += 8) {
      uint64_t w = 0;
      std::memcpy(&w, s.data() + i, std::min<size_t>(8, s.size() - i));
      word(w);
    }
  }
};

}  // namespace

int plant_of(const std::string& name) {
  if (name.empty()) return PLANT_NONE;
  if (name == "omit players.lifetime") return PLANT_OMIT_PLAYER_LIFETIME;
  throw std::invalid_argument("unknown planted fingerprint bug '" + name +
                              "' (known: omit players.lifetime)");
}

// Every field core.cpp's to_json (and solo.cpp's) writes, with what it writes: a field the
// JSON leaves out in some state (a pending step's action outside ChoosePayment, a turn's
// took_last_cube without a turn) is left out here in the same state. Not the round (no rule
// reads it: search.py fingerprint), nor the rules and readings (one run has one).
uint64_t fingerprint(const State& s, int plant) {
  Hasher f;
  f.flag(s.carla.has_value());
  if (s.carla) {
    const CarlaBoard& c = *s.carla;
    f.num(c.space);
    f.num(c.last_cube);
    f.ints(c.fate);
    f.num(c.look_for);
    f.num(c.look_from);
    f.num(c.took_from);
    f.flag(c.reacted);
    f.flag(c.quill);
    f.flag(c.well_turn);
    f.num(c.end_in_market_of);
    f.num(c.action_waits);
  }
  f.num(s.start_player);
  f.num(s.next_start_holder);
  f.tally(s.supply_cubes);
  f.num(s.supply_coins);
  f.num(s.supply_grain);
  f.tally(s.supply_goods);
  f.tally(s.green_bag);
  for (const auto& space : s.spaces) f.tally(space);
  f.ints(s.market_available);
  f.ints(s.market_waiting);
  f.ints(s.customer_pile);
  f.num(s.bag_monks);
  f.num(s.monks_aside);
  f.num(static_cast<long long>(s.players.size()));
  for (const Player& p : s.players) {
    f.text(p.colour);
    f.ints(p.members);  // location ids: one Tables per run, so one id per location text
    f.num(p.grain);
    f.num(p.coins);
    if (plant != PLANT_OMIT_PLAYER_LIFETIME) f.num(p.lifetime);
    f.num(p.prestige);
    f.tally(p.cubes);
    f.tally(p.goods);
    f.ints(p.customers);
    f.num(static_cast<long long>(p.markers.size()));
    for (const auto& m : p.markers) f.text(m);
  }
  const Pending& q = s.pending;
  f.num(q.kind);
  f.num(q.seat);
  f.num(q.space);
  f.num(q.remaining);
  f.num(q.position);
  f.num(q.max_stage);
  f.num(q.slot);
  if (q.kind == CHOOSE_PAYMENT) f.text(q.action);
  f.num(s.turn);
  if (s.turn != NONE) f.flag(s.turn_took_last_cube);
  f.flag(s.market_day.has_value());
  if (s.market_day) {
    const MarketDay& m = *s.market_day;
    f.num(m.trigger);
    f.num(m.current);
    f.ints(m.passed);
    f.flag(m.trigger_sold);
    f.num(m.held_deaths);
    f.flag(m.closed);
    f.flag(m.first_pass_waived);
  }
  f.flag(s.mass.has_value());
  if (s.mass) {
    f.num(s.mass->bought);
    f.flag(s.mass->final);
    f.flag(s.mass->in_final_actions);
    f.ints(s.mass->stopped);
  }
  f.ints(s.deaths_owed);
  f.num(s.end_triggered_by);
  f.flag(s.final_turns.has_value());
  if (s.final_turns) f.ints(*s.final_turns);
  return f.h;
}

namespace {

// end_of_game.py ended_by: what filled up and so ended the game (END-01, AMB-12 b)
std::string ended_by(const Core& core, const State& s) {
  int total = 0;
  bool one_full = false;
  for (int c = 0; c < N_CATEGORIES; ++c) {
    int left = core.explore_chronicle_free(s, c);
    total += left;
    one_full = one_full || left <= 0;
  }
  bool chronicle = total <= 0;
  std::string out;
  auto add = [&](const char* name) { out += (out.empty() ? "" : " and ") + std::string(name); };
  if (chronicle) add("chronicle");
  if (!chronicle && one_full && s.amb12 == 'b') add("chronicle category");
  if (core.explore_graveyard_free(s) <= 0) add("graveyard");
  return out.empty() ? "not ended" : out;
}

// check_json: the states keyed by their JSON with the round 0 beside the fingerprints, so
// that a fingerprint which merges two states the JSON tells apart, or splits two it does
// not, is caught on the first such state and named.
struct JsonCheck {
  std::unordered_map<uint64_t, std::string> by_fp;
  std::unordered_set<std::string> jsons;
  std::string rules;  // the roots' rules text (the frontier's states drop theirs)
  std::string error;
  std::string json(const Core& core, const State& s) {
    State zero = s;
    zero.round = 0;
    zero.rules_json = rules;
    return core.explore_json(zero);
  }
  // whether the fingerprint's verdict (`added`: new) agrees with the JSON's
  void see(const Core& core, const State& s, uint64_t fp, bool added) {
    if (!error.empty()) return;
    std::string text = json(core, s);
    bool fresh = jsons.insert(text).second;
    auto it = by_fp.find(fp == 0 ? 1 : fp);
    if (added) {
      by_fp.emplace(fp == 0 ? 1 : fp, text);
      if (!fresh) error = "the fingerprint splits two equal states (round 0): " + text;
    } else if (it != by_fp.end() && it->second != text) {
      error = "the fingerprint merges two distinct states: " + it->second + " and " + text;
    }
  }
};

}  // namespace


// ---- SeenSet (explore.hpp) ---------------------------------------------------------------

namespace {
constexpr int REMAINDER_BITS = 64 - SeenSet::SEGMENT_BITS;
constexpr uint64_t REMAINDER_MASK = (uint64_t(1) << REMAINDER_BITS) - 1;
constexpr double MAX_LOAD = 0.8;
constexpr double GROWTH = 1.15;

inline uint64_t load6(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, SeenSet::SLOT_BYTES);  // little-endian hosts: the low six bytes
  return v;
}
inline void store6(uint8_t* p, uint64_t v) { std::memcpy(p, &v, SeenSet::SLOT_BYTES); }
// the home slot of a remainder in a segment of `capacity` slots: its high bits scaled
inline size_t home(uint64_t rem, uint32_t capacity) {
  return static_cast<size_t>(((rem >> 16) * capacity) >> 32);
}
inline uint32_t limit_of(uint32_t capacity) { return static_cast<uint32_t>(capacity * MAX_LOAD); }
}  // namespace

SeenSet::SeenSet() : segments_(size_t(1) << SEGMENT_BITS), zeros_(size_t(1) << SEGMENT_BITS, false) {}

bool SeenSet::add(uint64_t fp) {
  size_t index = static_cast<size_t>(fp >> REMAINDER_BITS);
  uint64_t rem = fp & REMAINDER_MASK;
  if (rem == 0) {  // 0 marks an empty slot: the segment's zero remainder is a flag of its own
    if (zeros_[index]) return false;
    zeros_[index] = true;
    ++count_;
    return true;
  }
  Segment& seg = segments_[index];
  if (seg.capacity > 0) {
    size_t i = home(rem, seg.capacity);
    while (true) {
      uint64_t at = load6(seg.slots.get() + i * SLOT_BYTES);
      if (at == 0) break;
      if (at == rem) return false;
      if (++i == seg.capacity) i = 0;
    }
  }
  if (seg.count + 1 > limit_of(seg.capacity)) grow(seg);
  place(seg, rem);
  ++seg.count;
  ++count_;
  return true;
}

void SeenSet::place(Segment& seg, uint64_t rem) {
  size_t i = home(rem, seg.capacity);
  while (load6(seg.slots.get() + i * SLOT_BYTES) != 0)
    if (++i == seg.capacity) i = 0;
  store6(seg.slots.get() + i * SLOT_BYTES, rem);
}

void SeenSet::grow(Segment& seg) {
  uint32_t capacity = std::max<uint32_t>(8, static_cast<uint32_t>(seg.capacity * GROWTH) + 1);
  while (limit_of(capacity) < seg.count + 1) ++capacity;
  Segment bigger;
  bigger.capacity = capacity;
  bigger.count = seg.count;
  bigger.slots.reset(new uint8_t[size_t(capacity) * SLOT_BYTES]());
  for (uint32_t i = 0; i < seg.capacity; ++i) {
    uint64_t rem = load6(seg.slots.get() + size_t(i) * SLOT_BYTES);
    if (rem) place(bigger, rem);
  }
  slot_bytes_ += (size_t(capacity) - seg.capacity) * SLOT_BYTES;
  seg = std::move(bigger);
}

long long SeenSet::nbytes() const {
  return static_cast<long long>(slot_bytes_ + segments_.size() * sizeof(Segment) + zeros_.size() / 8);
}

std::vector<uint64_t> SeenSet::keys() const {
  std::vector<uint64_t> out;
  out.reserve(count_);
  for (size_t index = 0; index < segments_.size(); ++index) {
    uint64_t top = uint64_t(index) << REMAINDER_BITS;
    if (zeros_[index]) out.push_back(top);
    const Segment& seg = segments_[index];
    for (uint32_t i = 0; i < seg.capacity; ++i) {
      uint64_t rem = load6(seg.slots.get() + size_t(i) * SLOT_BYTES);
      if (rem) out.push_back(top | rem);
    }
  }
  return out;
}

Counts run(const std::vector<const Core*>& roots, const Options& options) {
  Counts out;
  out.roots = static_cast<long long>(roots.size());
  if (roots.empty()) return out;
  const Core& core = *roots.front();  // the rules are the same for every root (one Tables, one variant)
  auto start = std::chrono::steady_clock::now();
  SeenSet seen;
  JsonCheck check;
  check.rules = roots.front()->explore_root().rules_json;
  std::vector<State> frontier, level;
  long long states = 0;
  for (const Core* root : roots) {
    State s = root->explore_root();
    s.rules_json.clear();  // one text for the run, not one per state kept
    uint64_t fp = fingerprint(s, options.plant);
    bool added = seen.add(fp);
    if (options.check_json) check.see(core, s, fp, added);
    if (added) {
      frontier.push_back(std::move(s));
      ++states;
    }
  }
  std::vector<int> ids;
  std::vector<std::tuple<int, long long, long long>> outcomes;
  long long depth = 0;
  while (!frontier.empty()) {
    level.clear();
    for (const State& parent : frontier) {
      ids.clear();
      try {  // search.py moves
        if (parent.pending.kind == GAME_OVER) {
        } else if (parent.pending.kind == SEED_DRAW || parent.pending.kind == REFILL_DRAW ||
                   parent.pending.kind == MASS_DRAW || parent.pending.kind == FATE_REVEAL) {
          outcomes = core.explore_chance(parent);
          for (const auto& o : outcomes) ids.push_back(std::get<0>(o));
        } else {
          core.explore_legal(parent, ids);
        }
      } catch (const std::exception& e) {  // the engine refused to go on: a finding, not a crash
        if (out.engine_exceptions++ == 0) out.first_exception = e.what();
        ++out.deadlocks;
        continue;
      }
      if (ids.empty()) {
        if (parent.pending.kind == GAME_OVER)
          ++out.terminal[ended_by(core, parent)];
        else
          ++out.deadlocks;
        continue;
      }
      for (int id : ids) {
        State child = parent;
        try {
          core.explore_step(child, id);
        } catch (const std::exception& e) {
          if (out.engine_exceptions++ == 0) out.first_exception = e.what();
          continue;
        }
        ++out.edges;
        uint64_t fp = fingerprint(child, options.plant);
        bool added = seen.add(fp);
        if (options.check_json) check.see(core, child, fp, added);
        if (!added) continue;
        level.push_back(std::move(child));
        ++states;
        if (states > options.max_states) {
          out.limit_reached = true;
          out.depth = depth + 1;
          out.frontier = static_cast<long long>(level.size());
          out.states = states;
          out.seen_bytes = seen.nbytes();
          out.json_error = check.error;
          return out;
        }
      }
    }
    if (!level.empty()) ++depth;
    frontier.swap(level);
    if (options.progress) options.progress(depth, states, out.edges, static_cast<long long>(frontier.size()));
  }
  out.states = states;
  out.depth = depth;
  out.seen_bytes = seen.nbytes();
  out.json_error = check.error;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}


void bind_seen(py::module_& m) {
  py::class_<SeenSet>(m, "SeenSet")
      .def(py::init<>())
      .def("add", &SeenSet::add, py::arg("fingerprint"))
      .def("__len__", &SeenSet::size)
      .def_property_readonly("nbytes", &SeenSet::nbytes)
      .def("keys", &SeenSet::keys);
}

py::dict to_dict(const Counts& c) {
  py::dict d;
  d["roots"] = c.roots;
  d["states"] = c.states;
  d["edges"] = c.edges;
  d["depth"] = c.depth;
  d["deadlocks"] = c.deadlocks;
  d["engine_exceptions"] = c.engine_exceptions;
  d["first_exception"] = c.first_exception;
  d["terminal"] = c.terminal;
  d["seen_bytes"] = c.seen_bytes;
  d["limit_reached"] = c.limit_reached;
  d["frontier"] = c.frontier;
  d["json_error"] = c.json_error;
  d["seconds"] = c.seconds;
  return d;
}

}  // namespace village::explore
