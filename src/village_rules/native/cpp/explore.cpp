// The native explorer's breadth-first loop (explore.hpp; issue 40, item 1), a reading of
// village_rules/explore/search.py explore and expand: the same roots (the set-ups, loaded
// from the reference's JSON), the same edges (every legal id, every chance outcome), the same
// identity of a state (everything but the round counter) and the same counts; with `check`,
// every state and transition invariant (checks.hpp). A state's identity here is a 64-bit
// fingerprint of its canonical packing (`fingerprint`, pack.hpp), kept in a compact,
// quotiented set of fingerprints (`SeenSet`); the frontier is kept packed; each state's
// parent and move give a shortest game to each end (`Parents`, `witness`).
//
// Threads (`Options::workers`) share each level, each the owner of part of the fingerprints,
// as the Python explorer's processes are (explore/parallel.py; `run` says how).
//
// Checkpoints (`Options::checkpoint`, checkpoint.hpp): the loop's state at a batch boundary
// (the seen sets' fingerprints, the parents, the states still to expand and the level being
// built, the tallies) written at the first level boundary after every N states and where
// the run stops early, and read back before any work on resume.
//
// The catalogue's STEP queries are judged on every edge (Options::queries) and the path
// monitors' products explored (Options::monitors), each witness rebuilt from `Parents`;
// `Shard` runs the same edge loop on Ray actors across machines.

#include "explore.hpp"

#include "checkpoint.hpp"
#include "pack.hpp"
#include "predicates.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <set>
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

// Words folded in order, each through the mixer, from a fixed start.
struct Hasher {
  uint64_t h = 0x6a09e667f3bcc908ULL;  // a fixed start (sqrt(2)'s fraction, SHA-512's first word)
  void word(uint64_t w) { h = mix(h ^ w); }
  void num(long long v) { word(static_cast<uint64_t>(v)); }
};

}  // namespace

int plant_of(const std::string& name) {
  if (name.empty()) return PLANT_NONE;
  if (name == "omit players.lifetime") return PLANT_OMIT_PLAYER_LIFETIME;
  if (name == "pack forgets players.lifetime") return PLANT_PACK_FORGETS_PLAYER_LIFETIME;
  throw std::invalid_argument("unknown planted bug '" + name +
                              "' (known: omit players.lifetime, pack forgets players.lifetime)");
}

// A state's identity: the bytes of its canonical packing after the round (pack.hpp: every
// field the canonical JSON writes, only where it writes it; not the round, which no rule
// reads: search.py fingerprint; nor the rules and readings: one run has one), folded eight
// bytes at a time through splitmix64's mixer after their length. A packing is
// self-delimiting, so two different states give two different byte strings.
uint64_t fingerprint_bytes(const uint8_t* begin, const uint8_t* end) {
  Hasher f;
  f.num(end - begin);
  for (; end - begin >= 8; begin += 8) {
    uint64_t w;
    std::memcpy(&w, begin, 8);
    f.word(w);
  }
  if (begin < end) {
    uint64_t w = 0;
    std::memcpy(&w, begin, static_cast<size_t>(end - begin));
    f.word(w);
  }
  return f.h;
}

namespace {
// `s` packed onto `out`, or, for a planted bug (tests), a copy with the players' life-time
// dropped: left out of the fingerprint (PLANT_OMIT_...) or of the frontier (PLANT_PACK_...).
void pack_planted(const State& s, bool drop_lifetime, std::vector<uint8_t>& out) {
  if (!drop_lifetime) return pack::pack(s, out);
  State lossy = s;
  for (Player& p : lossy.players) p.lifetime = 0;
  pack::pack(lossy, out);
}
uint64_t fingerprint_packed(const std::vector<uint8_t>& bytes) {
  return fingerprint_bytes(pack::after_round(bytes.data()), bytes.data() + bytes.size());
}
// The monitors' values after a packed state (Options::monitors: a state of the product), so
// that the fingerprint of the bytes is the product state's (search.py seen_key): for each
// monitor of `monitors` in order, each int as 4 bytes, then the count plus one (0: None);
// read back from the end, the last monitor first.
using Values = std::array<predicates::Value, predicates::N_MONITORS>;
void pack_values(uint32_t monitors, const Values& values, std::vector<uint8_t>& out) {
  for (int m = 0; monitors >> m; ++m) {
    if (!(monitors >> m & 1u)) continue;
    const predicates::Value& v = values[static_cast<size_t>(m)];
    for (int k = 0; k < v.size; ++k)
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v.v[k]) >> (8 * b)));
    out.push_back(static_cast<uint8_t>(v.size + 1));
  }
}
Values unpack_values(uint32_t monitors, const uint8_t* at, size_t length) {
  Values values;
  size_t end = length;
  for (int m = predicates::N_MONITORS - 1; m >= 0; --m) {
    if (!(monitors >> m & 1u)) continue;
    predicates::Value& v = values[static_cast<size_t>(m)];
    v.size = static_cast<int>(at[end - 1]) - 1;
    end -= 1 + 4 * static_cast<size_t>(std::max(v.size, 0));
    const uint8_t* p = at + end;
    for (int k = 0; k < v.size; ++k, p += 4)
      v.v[k] = static_cast<int>(static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                                static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24);
  }
  return values;
}
}  // namespace

uint64_t fingerprint(const State& s, int plant) {
  thread_local std::vector<uint8_t> bytes;
  bytes.clear();
  pack_planted(s, plant == PLANT_OMIT_PLAYER_LIFETIME, bytes);
  return fingerprint_packed(bytes);
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
  // whether the packed bytes give the state back (pack.hpp): unpacked into the run's base
  void packed(const Core& core, const State& s, const uint8_t* bytes, const State& base) {
    if (!error.empty()) return;
    State back = base;
    pack::unpack(bytes, back);
    back.rules_json = rules;
    State sent = s;
    sent.rules_json = rules;
    std::string text = core.explore_json(back), want = core.explore_json(sent);
    if (text != want)  // the round included (not 0, as in `json`)
      error = "packing loses part of a state: packed " + want + ", unpacked " + text;
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

void SeenSet::prefetch(uint64_t fp) const {
  const Segment& seg = segments_[static_cast<size_t>(fp >> REMAINDER_BITS)];
  if (seg.capacity > 0) __builtin_prefetch(seg.slots.get() + home(fp & REMAINDER_MASK, seg.capacity) * SLOT_BYTES);
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

bool SeenSet::segment(size_t index, std::vector<uint64_t>& out) const {
  const Segment& seg = segments_[index];
  for (uint32_t i = 0; i < seg.capacity; ++i) {
    uint64_t rem = load6(seg.slots.get() + size_t(i) * SLOT_BYTES);
    if (rem) out.push_back(rem);
  }
  return zeros_[index];
}

namespace {

// A few threads that run one function together: `run(fn)` calls fn(w) for every worker w
// (0 on the calling thread) and returns when all have; an exception in a worker is rethrown
// on the caller. Persistent, so a batch costs two wake-ups, not two thread starts.
class Pool {
 public:
  explicit Pool(int workers) : workers_(workers) {
    for (int w = 1; w < workers; ++w) threads_.emplace_back([this, w] { loop(w); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void run(const std::function<void(int)>& fn) {
    if (workers_ == 1) return fn(0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      pending_ = workers_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
      fn(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    fn_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop(int w) {
    unsigned long long seen = 0;
    while (true) {
      const std::function<void(int)>* fn;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
        fn = fn_;
      }
      std::exception_ptr error;
      try {
        (*fn)(w);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error && !error_) error_ = error;
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }
  int workers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* fn_ = nullptr;
  int pending_ = 0;
  unsigned long long generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

// What one worker counted: summed over the workers at the end, in worker order.
struct Tally {
  long long edges = 0, deadlocks = 0, engine_exceptions = 0, checked = 0, edges_checked = 0,
            violation_count = 0;
  std::vector<std::string> violations;  // the first few, with their states
  std::map<std::string, uint64_t> first_end;  // what ended the game -> the lowest state id so ended
  // Options::queries: the STEP queries this worker has not met yet, and each met -> the
  // lowest (state id, move) of an edge meeting it (a worker's states come in id order)
  uint32_t unmet = predicates::ALL_STEP_QUERIES;
  uint32_t monitors_met = 0;  // Options::monitors: those whose query was met (each hit keyed N_STEP_QUERIES + the monitor)
  std::map<int, std::pair<uint64_t, int>> hits;
  std::unordered_set<const char*> fired;  // the rule IDs the judged steps fired
  std::vector<checks::Violation> found;  // scratch
  std::map<std::string, long long> terminal;
  std::string first_exception;
  void exception(const std::exception& e) {
    if (engine_exceptions++ == 0) first_exception = e.what();
  }
};

// States packed one after another in one arena (pack.hpp), with where each starts: a level
// of the frontier, a worker's children for one owner, an owner's new states.
struct Packed {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> starts;
  std::vector<uint64_t> fps;      // outboxes: each state's fingerprint
  std::vector<uint32_t> parents;  // outboxes and new states: each state's parent's id
  std::vector<uint16_t> moves;    // and the index of the move into it among the parent's
  size_t size() const { return starts.size(); }
  const uint8_t* at(size_t i) const { return bytes.data() + starts[i]; }
  size_t length(size_t i) const { return (i + 1 < starts.size() ? starts[i + 1] : bytes.size()) - starts[i]; }
  void add(const State& s, int plant) {
    starts.push_back(bytes.size());
    pack_planted(s, plant == PLANT_PACK_FORGETS_PLAYER_LIFETIME, bytes);
  }
  void copy(const Packed& from, size_t i) {
    starts.push_back(bytes.size());
    bytes.insert(bytes.end(), from.at(i), from.at(i) + from.length(i));
    parents.push_back(from.parents[i]);
    moves.push_back(from.moves[i]);
  }
  void append(const Packed& from) {  // every state of `from`, after these
    uint64_t shift = bytes.size();
    for (uint64_t start : from.starts) starts.push_back(start + shift);
    bytes.insert(bytes.end(), from.bytes.begin(), from.bytes.end());
  }
  void clear() {
    bytes.clear();
    starts.clear();
    fps.clear();
    parents.clear();
    moves.clear();
  }
};

// Every state's parent and the index of the move into it, by state id (the order states are
// found in: deterministic for a number of workers), 6 bytes a state: what a shortest witness
// needs (search.py's _Parents). A root's parent is ROOT and its move its index among the roots.
constexpr uint32_t ROOT = 0xFFFFFFFFu;
struct Parents {
  std::vector<uint32_t> parent;
  std::vector<uint16_t> move;
  long long nbytes() const {
    return static_cast<long long>(parent.capacity() * sizeof(uint32_t) + move.capacity() * sizeof(uint16_t));
  }
};

// The moves of a state as the loop takes them: its chance outcomes or its legal ids, in order.
void moves_of(const Core& core, const State& s, std::vector<int>& ids) {
  ids.clear();
  if (s.pending.kind == GAME_OVER) return;
  if (s.pending.kind == SEED_DRAW || s.pending.kind == REFILL_DRAW || s.pending.kind == MASS_DRAW ||
      s.pending.kind == FATE_REVEAL) {
    for (const auto& o : core.explore_chance(s)) ids.push_back(std::get<0>(o));
  } else {
    core.explore_legal(s, ids);
  }
}

// The shortest witness of state `id`: its root's index and the action ids from that root's
// state, replayed move by move on the core (a move index becomes the id it stands for).
std::pair<int, std::vector<int>> witness(const Parents& parents, uint64_t id, const std::vector<const Core*>& roots) {
  std::vector<uint16_t> moves;
  while (parents.parent[id] != ROOT) {
    moves.push_back(parents.move[id]);
    id = parents.parent[id];
  }
  int root = parents.move[id];
  const Core& core = *roots[static_cast<size_t>(root)];
  State s = core.explore_root();
  std::vector<int> ids, out;
  for (auto k = moves.rbegin(); k != moves.rend(); ++k) {
    moves_of(core, s, ids);
    out.push_back(ids.at(*k));
    core.explore_step(s, out.back());
  }
  return {root, out};
}

// One state expanded, as search.py expand: its state invariants checked (with `check`: every
// distinct state is expanded once, so checked once), its moves taken in order, each child
// stepped into `child` and (with `check`) its transition checked, then handed to
// `emit(child, k, values)` (values: the child's monitors' values, with `monitors`; with
// `queries` each pending STEP query judged after every sub-step); a state without moves
// counted as terminal, by what ended the game (the lowest `self` so ended kept), or as a
// deadlock; an engine exception counted, not thrown.
// `record(at, where)` names the violations just found in `mine.found`. The one edge loop of
// the threads' `run` and of a `Shard`.
template <class Record, class Emit>
void expand_state(const Core& core, bool check, bool queries, uint32_t monitors, const Values& values,
                  Tally& mine, const State& parent, State& child, uint64_t self, std::vector<int>& ids,
                  Record&& record, Emit&& emit) {
  if (check) {
    mine.found.clear();
    core.explore_violations(parent, mine.found);
    ++mine.checked;
    record(parent, " in ");
  }
  try {  // search.py moves
    moves_of(core, parent, ids);
    if (ids.size() > 0xFFFF) throw std::length_error("more than 65,535 moves at one state");
  } catch (const std::exception& e) {  // the engine refused to go on: a finding, not a crash
    mine.exception(e);
    ++mine.deadlocks;
    return;
  }
  if (ids.empty()) {
    if (parent.pending.kind == GAME_OVER) {
      std::string ended = ended_by(core, parent);
      ++mine.terminal[ended];
      auto [at, fresh_end] = mine.first_end.emplace(ended, self);
      if (!fresh_end) at->second = std::min(at->second, self);
    } else
      ++mine.deadlocks;
    return;
  }
  for (size_t k = 0; k < ids.size(); ++k) {
    const int id = ids[k];
    child = parent;  // assigned, not built: the vectors keep their storage
    predicates::Judging judging;
    try {
      if (monitors || (queries && mine.unmet)) {  // search.py expand: every sub-step
        judging.which = queries ? mine.unmet : 0u;
        judging.monitors = monitors;  // each folded on, met or not: its value is the product state's
        judging.values = values;
        judging.fired = &mine.fired;
        core.explore_step_judged(parent, child, id, judging);
        for (int q = 0; judging.held >> q; ++q)
          if (judging.held >> q & 1u) mine.hits[q] = {self, static_cast<int>(k)};
        mine.unmet &= ~judging.held;
        for (int m = 0; (judging.monitored & ~mine.monitors_met) >> m; ++m)
          if ((judging.monitored & ~mine.monitors_met) >> m & 1u)
            mine.hits[predicates::N_STEP_QUERIES + m] = {self, static_cast<int>(k)};
        mine.monitors_met |= judging.monitored;
      } else {
        core.explore_step(child, id);
      }
    } catch (const std::exception& e) {
      mine.exception(e);
      continue;
    }
    ++mine.edges;
    if (check) {  // the step's transition invariants, on every edge
      mine.found.clear();
      core.explore_transition_violations(parent, id, child, mine.found);
      ++mine.edges_checked;
      record(parent, " from ");
    }
    emit(child, k, judging.values);
  }
}

// The parents expanded together before their children are deduplicated: enough to keep
// the workers busy between two barriers, few enough that the children held meanwhile (every
// edge's state, duplicates included) stay a small part of the frontier's memory.
constexpr size_t BATCH = 2048;

// The violations named in full (each with its state's JSON); the rest are counted.
constexpr long long MAX_VIOLATIONS_KEPT = 10;

// ---- Checkpoints (checkpoint.hpp holds the file's frame) ------------------------------------
//
// The loop's state at a batch boundary, all `run` needs to go on as if it had not stopped.
// The body, in order: the threads that wrote it, the levels done, the states found, the id
// of the first state still to expand, the widest level's bytes; each thread's tally; the
// seen sets' fingerprints, segment by segment (a count, then each remainder in 6 bytes, as
// the set holds them); every state's parent and move, by state id (the parent as a zigzag
// delta from the one before, 1 to 3 bytes, and the move as a varint, 1); then the states
// still to expand and those of the level being built, packed (pack.hpp) after their lengths.

// Where the loop is: the scalars of a checkpoint.
struct Position {
  long long depth = 0, states = 0, widest = 0;
  uint64_t base = 0;  // the id of the first state still to expand
};

void write_tally(checkpoint::Writer& out, const Tally& t) {
  for (long long n : {t.edges, t.deadlocks, t.engine_exceptions, t.checked, t.edges_checked, t.violation_count})
    out.varint(static_cast<uint64_t>(n));
  out.text(t.first_exception);
  out.varint(t.violations.size());
  for (const std::string& v : t.violations) out.text(v);
  out.varint(t.terminal.size());
  for (const auto& [ended, n] : t.terminal) {
    out.text(ended);
    out.varint(static_cast<uint64_t>(n));
  }
  out.varint(t.first_end.size());
  for (const auto& [ended, id] : t.first_end) {
    out.text(ended);
    out.varint(id);
  }
}

void read_tally(checkpoint::Reader& in, Tally& t, long long states) {
  auto number = [&in]() {
    uint64_t n = in.varint();
    if (n > (uint64_t(1) << 62)) in.damaged("malformed: a count out of range");
    return static_cast<long long>(n);
  };
  t.edges = number();
  t.deadlocks = number();
  t.engine_exceptions = number();
  t.checked = number();
  t.edges_checked = number();
  t.violation_count = number();
  t.first_exception = in.text();
  for (uint64_t n = in.count(1, "violations"); n > 0; --n) t.violations.push_back(in.text());
  for (uint64_t n = in.count(2, "kinds of end"); n > 0; --n) {
    std::string ended = in.text();
    t.terminal[ended] = number();
  }
  for (uint64_t n = in.count(2, "first ends"); n > 0; --n) {
    std::string ended = in.text();
    uint64_t id = in.varint();
    if (id >= static_cast<uint64_t>(states)) in.damaged("malformed: an end at a state it does not hold");
    t.first_end[ended] = id;
  }
}

void merge_tally(Tally& into, const Tally& t) {  // in thread order, as `run` sums them
  into.edges += t.edges;
  into.deadlocks += t.deadlocks;
  if (into.engine_exceptions == 0 && t.engine_exceptions > 0) into.first_exception = t.first_exception;
  into.engine_exceptions += t.engine_exceptions;
  into.checked += t.checked;
  into.edges_checked += t.edges_checked;
  into.violation_count += t.violation_count;
  for (const auto& v : t.violations)
    if (static_cast<long long>(into.violations.size()) < MAX_VIOLATIONS_KEPT) into.violations.push_back(v);
  for (const auto& [ended, n] : t.terminal) into.terminal[ended] += n;
  for (const auto& [ended, id] : t.first_end) {
    auto [at, added] = into.first_end.emplace(ended, id);
    if (!added) at->second = std::min(at->second, id);
  }
}

void write_packed(checkpoint::Writer& out, const Packed& states, size_t from) {
  out.varint(states.size() - from);
  for (size_t i = from; i < states.size(); ++i) out.varint(states.length(i));
  if (from < states.size())
    out.bytes(states.at(from), states.bytes.size() - static_cast<size_t>(states.starts[from]));
}

void read_packed(checkpoint::Reader& in, Packed& states) {
  uint64_t n = in.count(2, "packed states");  // a length and at least a byte each
  uint64_t total = 0;
  states.starts.reserve(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t length = in.varint();
    if (length == 0 || length > in.left() - total) in.damaged("malformed: a packed state's length");
    states.starts.push_back(total);
    total += length;
  }
  states.bytes.resize(static_cast<size_t>(total));
  in.bytes(states.bytes.data(), states.bytes.size());
}

constexpr size_t SEGMENTS = size_t(1) << SeenSet::SEGMENT_BITS;

// Writes the checkpoint: the states of `frontier` from `from` on are still to be expanded,
// `level` is the level being built (empty at a level boundary). Returns the file's size.
long long save_run(const Checkpointing& cp, const Position& at, const std::vector<Tally>& tally,
                   const std::vector<SeenSet>& seen, const Parents& parents, const Packed& frontier, size_t from,
                   const Packed& level) {
  checkpoint::Writer out(cp.save, cp.header);
  out.varint(tally.size());
  for (long long n : {at.depth, at.states, at.widest}) out.varint(static_cast<uint64_t>(n));
  out.varint(at.base + from);
  for (const Tally& t : tally) write_tally(out, t);
  std::vector<uint64_t> rems;
  for (size_t index = 0; index < SEGMENTS; ++index) {  // a segment's owner: its number modulo the threads
    rems.clear();
    bool zero = seen[index % seen.size()].segment(index, rems);
    out.varint(rems.size() * 2 + (zero ? 1 : 0));
    for (uint64_t rem : rems) {
      uint8_t six[8];
      std::memcpy(six, &rem, 8);  // little-endian: the low six bytes, as the set stores them
      out.bytes(six, SeenSet::SLOT_BYTES);
    }
  }
  int64_t before = 0;
  for (size_t i = 0; i < parents.parent.size(); ++i) {
    int64_t p = parents.parent[i] == ROOT ? 0 : int64_t(parents.parent[i]) + 1;
    out.zigzag(p - before);
    before = p;
    out.varint(parents.move[i]);
  }
  write_packed(out, frontier, from);
  write_packed(out, level, 0);
  return out.commit();
}

// Reads a checkpoint into a run of `tally.size()` threads (another count than the writer's
// is fine: each fingerprint goes to its owner here, the tallies are summed into the first
// thread's). Refuses (checkpoint::DamagedError) anything that does not hold together.
Position load_run(const Checkpointing& cp, size_t roots, std::vector<Tally>& tally, std::vector<SeenSet>& seen,
                  Parents& parents, Packed& frontier, Packed& level) {
  checkpoint::Reader in(cp.resume, cp.header);
  const uint64_t writers = in.varint();
  if (writers < 1 || writers > 64) in.damaged("malformed: written by " + std::to_string(writers) + " threads");
  Position at;
  at.depth = static_cast<long long>(in.varint());
  at.states = static_cast<long long>(in.varint());
  at.widest = static_cast<long long>(in.varint());
  at.base = in.varint();
  if (at.states < 1 || at.states >= static_cast<long long>(ROOT) || at.depth < 0 || at.widest < 0 ||
      at.base > static_cast<uint64_t>(at.states))
    in.damaged("malformed: its counts do not hold together");
  std::vector<Tally> saved(static_cast<size_t>(writers));
  for (Tally& t : saved) read_tally(in, t, at.states);
  if (saved.size() == tally.size())
    tally = std::move(saved);
  else
    for (const Tally& t : saved) merge_tally(tally.front(), t);
  uint64_t keys = 0;
  for (size_t index = 0; index < SEGMENTS; ++index) {
    uint64_t v = in.varint(), n = v >> 1, top = uint64_t(index) << REMAINDER_BITS;
    if (n > in.left() / SeenSet::SLOT_BYTES) in.damaged("malformed: a segment larger than its body");
    SeenSet& set = seen[index % seen.size()];
    if ((v & 1) != 0) set.add(top);
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t rem = 0;
      in.bytes(reinterpret_cast<uint8_t*>(&rem), SeenSet::SLOT_BYTES);
      if (rem == 0 || !set.add(top | rem)) in.damaged("malformed: a fingerprint twice in its seen set");
    }
    keys += n + (v & 1);
  }
  if (keys != static_cast<uint64_t>(at.states))
    in.damaged("malformed: " + std::to_string(keys) + " fingerprints for " + std::to_string(at.states) + " states");
  parents.parent.reserve(static_cast<size_t>(at.states));
  parents.move.reserve(static_cast<size_t>(at.states));
  int64_t before = 0;
  for (long long i = 0; i < at.states; ++i) {
    int64_t delta = in.zigzag(), p = before + delta;
    uint64_t move = in.varint();
    // a parent is found before its child, and a root's move is its index among the roots
    if (p < 0 || p > i || (p == 0 ? move >= roots : move > 0xFFFF)) in.damaged("malformed: a state's parent");
    before = p;
    parents.parent.push_back(p == 0 ? ROOT : static_cast<uint32_t>(p - 1));
    parents.move.push_back(static_cast<uint16_t>(move));
  }
  read_packed(in, frontier);
  read_packed(in, level);
  if (at.base + frontier.size() + level.size() != static_cast<uint64_t>(at.states))
    in.damaged("malformed: its states still to expand do not end where its states do");
  in.finish();
  return at;
}

}  // namespace

// Breadth first by levels. With several workers each level goes in batches of parents, in
// two phases: (a) each worker expands its slice of the batch, fingerprints every child and
// sorts it by the fingerprint's owner (its segment modulo the workers); (b) each owner adds
// the fingerprints it owns to its own seen set, in worker order, and keeps the new states.
// No lock guards a seen set (each has one writer), and the states, edges, levels and
// terminal counts are those of one worker; the order of a level's states is deterministic
// for a given number of workers (the owners' new states, owner by owner), and with one
// worker it is the sequential loop's (search.py's).
Counts run(const std::vector<const Core*>& roots, const Options& options) {
  Counts out;
  out.roots = static_cast<long long>(roots.size());
  if (roots.empty()) return out;
  const int workers = options.workers;
  if (workers < 1 || workers > 64) throw std::invalid_argument("workers must be 1 to 64, not " + std::to_string(workers));
  if (options.max_states >= static_cast<long long>(ROOT))  // a state id is 32 bits (Parents)
    throw std::invalid_argument("max_states must be under 4,294,967,295, not " + std::to_string(options.max_states));
  if (options.check_json && workers != 1)
    throw std::invalid_argument("check_json keys every state in one table: it runs with one worker only");
  const bool saving = !options.checkpoint.save.empty(), resuming = !options.checkpoint.resume.empty();
  if (options.check_json && (saving || resuming))
    throw std::invalid_argument("check_json keeps every state's JSON, which a checkpoint does not hold");
  const uint32_t monitors = options.monitors;
  if (monitors >> predicates::N_MONITORS) throw std::invalid_argument("no monitor " + std::to_string(monitors));
  if (monitors && (options.check_json || options.plant != PLANT_NONE || saving || resuming))
    throw std::invalid_argument("a monitor's product is explored without check_json, a planted bug or a checkpoint");
  if (options.queries && (saving || resuming))
    throw std::invalid_argument("the queries' verdicts are not kept in a checkpoint: no queries with a checkpoint");
  if ((saving || resuming) && options.checkpoint.header.empty())
    throw std::invalid_argument("a checkpoint needs the run's header (its identity)");
  if (saving && options.checkpoint.every < 1)
    throw std::invalid_argument("checkpoint every must be at least 1 state, not " +
                                std::to_string(options.checkpoint.every));
  auto start = std::chrono::steady_clock::now();
  // every worker its own core (the core keeps scratch buffers) and its own seen set
  std::vector<std::unique_ptr<Core>> clones;
  std::vector<const Core*> cores{roots.front()};
  for (int w = 1; w < workers; ++w) {
    clones.push_back(roots.front()->explore_clone());
    cores.push_back(clones.back().get());
  }
  std::vector<SeenSet> seen(static_cast<size_t>(workers));
  auto owner = [workers](uint64_t fp) { return static_cast<int>((fp >> (64 - SeenSet::SEGMENT_BITS)) % workers); };
  JsonCheck check;
  check.rules = roots.front()->explore_root().rules_json;
  // the states a worker unpacks into and steps on, reused: their readings are the roots'
  State base = roots.front()->explore_root();
  const std::string base_rules = base.rules_json;
  base.rules_json.clear();  // one text for the run, not one per state
  std::vector<State> parents(static_cast<size_t>(workers), base), children(static_cast<size_t>(workers), base);
  Packed frontier, level;  // the states to expand, and the level being built from them
  Parents parents_of;
  long long states = 0, depth = 0;
  uint64_t frontier_base = 0;  // the id of the frontier's first state
  std::vector<Tally> tally(static_cast<size_t>(workers));
  const Checkpointing& cp = options.checkpoint;
  if (!cp.resume.empty()) {  // before any work: a damaged checkpoint is refused here, whole
    Position at = load_run(cp, roots.size(), tally, seen, parents_of, frontier, level);
    states = at.states;
    depth = at.depth;
    frontier_base = at.base;
    out.frontier_bytes = at.widest;
    out.resumed_states = states;
    out.resumed_depth = depth;
  } else {
    for (size_t i = 0; i < roots.size(); ++i) {
      const Core* root = roots[i];
      State s = root->explore_root();
      s.rules_json.clear();
      std::vector<uint8_t> product;  // with monitors: the state and their start values
      if (monitors) {
        pack::pack(s, product);
        Values starts;
        for (int m = 0; m < predicates::N_MONITORS; ++m) starts[static_cast<size_t>(m)] = predicates::start(m);
        pack_values(monitors, starts, product);
      }
      uint64_t fp = monitors ? fingerprint_packed(product) : fingerprint(s, options.plant);
      bool added = seen[static_cast<size_t>(owner(fp))].add(fp);
      if (options.check_json) check.see(*cores[0], s, fp, added);
      if (added) {
        if (monitors) {
          frontier.starts.push_back(frontier.bytes.size());
          frontier.bytes.insert(frontier.bytes.end(), product.begin(), product.end());
        } else {
          frontier.add(s, options.plant);
        }
        parents_of.parent.push_back(ROOT);
        parents_of.move.push_back(static_cast<uint16_t>(i));
        ++states;
      }
    }
  }
  long long next_save = states + cp.every;  // the periodic checkpoint's next due count
  auto save = [&](size_t from) {  // the states of the frontier from `from` on are still to expand
    Position at{depth, states, out.frontier_bytes, frontier_base};
    out.checkpoint_bytes = save_run(cp, at, tally, seen, parents_of, frontier, from, level);
    ++out.checkpoints_written;
  };
  Pool pool(workers);
  // outbox[w][o]: the children worker w expanded whose fingerprints worker o owns
  std::vector<std::vector<Packed>> outbox(static_cast<size_t>(workers), std::vector<Packed>(static_cast<size_t>(workers)));
  std::vector<Packed> fresh(static_cast<size_t>(workers));  // each owner's new states
  std::vector<std::vector<uint8_t>> scratch(static_cast<size_t>(workers));  // a child's bytes
  // the violations just found (`found`), counted, the first few named with the state
  // they are in, or the edge's source, by its JSON
  auto record = [&](Tally& mine, const Core& core, const State& at, const char* where) {
    for (const auto& v : mine.found) {
      if (mine.violation_count++ >= MAX_VIOLATIONS_KEPT) continue;
      State named = at;
      named.rules_json = base_rules;
      mine.violations.push_back(v.invariant + " [" + v.component + "]: expected " + v.expected + ", found " +
                                v.actual + where + core.explore_json(named));
    }
  };
  std::vector<std::vector<int>> ids(static_cast<size_t>(workers));  // each worker's moves, reused
  auto expand = [&](size_t index, int w) {
    const Core& core = *cores[static_cast<size_t>(w)];
    Tally& mine = tally[static_cast<size_t>(w)];
    State& parent = parents[static_cast<size_t>(w)];
    pack::unpack(frontier.at(index), parent);
    Values values;  // with monitors: the parent's values (the product state's)
    if (monitors) values = unpack_values(monitors, frontier.at(index), frontier.length(index));
    const uint64_t self = frontier_base + index;
    auto named = [&](const State& at, const char* where) { record(mine, core, at, where); };
    auto emit = [&](const State& child, size_t k, const Values& child_values) {
      if (options.check_json) {  // one worker: dedupe at once, as the sequential loop does
        uint64_t fp = fingerprint(child, options.plant);
        bool added = seen[0].add(fp);
        check.see(core, child, fp, added);
        if (added) {
          fresh[0].add(child, options.plant);
          fresh[0].parents.push_back(static_cast<uint32_t>(self));
          fresh[0].moves.push_back(static_cast<uint16_t>(k));
          check.packed(core, child, fresh[0].at(fresh[0].size() - 1), base);
        }
      } else {  // packed once: the bytes give the fingerprint, then go to its owner
        std::vector<uint8_t>& bytes = scratch[static_cast<size_t>(w)];
        bytes.clear();
        pack_planted(child, options.plant == PLANT_PACK_FORGETS_PLAYER_LIFETIME, bytes);
        if (monitors) pack_values(monitors, child_values, bytes);  // a state of the product
        uint64_t fp = options.plant == PLANT_OMIT_PLAYER_LIFETIME ? fingerprint(child, options.plant)
                                                                   : fingerprint_packed(bytes);
        Packed& box = outbox[static_cast<size_t>(w)][static_cast<size_t>(owner(fp))];
        box.starts.push_back(box.bytes.size());
        box.bytes.insert(box.bytes.end(), bytes.begin(), bytes.end());
        box.fps.push_back(fp);
        box.parents.push_back(static_cast<uint32_t>(self));
        box.moves.push_back(static_cast<uint16_t>(k));
      }
    };
    expand_state(core, options.check, options.queries, monitors, values, mine, parent,
                 children[static_cast<size_t>(w)], self, ids[static_cast<size_t>(w)], named, emit);
  };
  auto keep = [&](int o) {  // phase (b): the owner's fingerprints, worker by worker
    SeenSet& mine = seen[static_cast<size_t>(o)];
    for (int w = 0; w < workers; ++w) {
      Packed& box = outbox[static_cast<size_t>(w)][static_cast<size_t>(o)];
      constexpr size_t AHEAD = 8;  // the fingerprints whose slots are fetched ahead of their add
      for (size_t i = 0; i < box.size(); ++i) {
        if (i + AHEAD < box.size()) mine.prefetch(box.fps[i + AHEAD]);
        if (mine.add(box.fps[i])) fresh[static_cast<size_t>(o)].copy(box, i);
      }
      box.clear();
    }
  };
  // A level: its batches, then the boundary. A resumed run starts inside one, with its
  // frontier the states still to expand and `level` the states it found before it stopped.
  while (true) {
    for (size_t begin = 0; begin < frontier.size(); begin += BATCH) {
      size_t end = std::min(frontier.size(), begin + BATCH);
      pool.run([&](int w) {
        size_t n = end - begin, from = begin + n * w / workers, to = begin + n * (w + 1) / workers;
        for (size_t i = from; i < to; ++i) expand(i, w);
      });
      if (!options.check_json) pool.run(keep);
      for (Packed& kept : fresh) {
        states += static_cast<long long>(kept.size());
        level.append(kept);
        parents_of.parent.insert(parents_of.parent.end(), kept.parents.begin(), kept.parents.end());
        parents_of.move.insert(parents_of.move.end(), kept.moves.begin(), kept.moves.end());
        kept.clear();
      }
      // the state budget, then `stop` (Ctrl-C, SIGTERM, the memory budget: the command
      // line's): the run ends here, saved here if it has a checkpoint file
      out.limit_reached = states > options.max_states;
      out.stopped = !out.limit_reached && options.stop && options.stop();
      if (out.limit_reached || out.stopped) {
        out.depth = depth + 1;
        out.frontier = static_cast<long long>(level.size());
        if (!cp.save.empty()) {
          save(end);
          out.saved = true;
        }
        break;
      }
    }
    if (out.limit_reached || out.stopped) break;
    if (level.size() > 0) ++depth;
    out.frontier_bytes = std::max(out.frontier_bytes, static_cast<long long>(level.bytes.size()));
    frontier_base += frontier.size();
    std::swap(frontier, level);
    level.clear();
    if (options.progress) {
      long long edges = 0;
      for (const Tally& t : tally) edges += t.edges;
      options.progress(depth, states, edges, static_cast<long long>(frontier.size()));
    }
    if (frontier.size() == 0) break;
    if (!cp.save.empty() && states >= next_save) {  // the first level boundary after every `every` states
      save(0);
      while (next_save <= states) next_save += cp.every;
    }
  }
  for (const Tally& t : tally) {
    out.edges += t.edges;
    out.deadlocks += t.deadlocks;
    if (out.engine_exceptions == 0 && t.engine_exceptions > 0) out.first_exception = t.first_exception;
    out.engine_exceptions += t.engine_exceptions;
    for (const auto& [ended, n] : t.terminal) out.terminal[ended] += n;
    out.states_checked += t.checked;
    out.edges_checked += t.edges_checked;
    out.violation_count += t.violation_count;
    for (const auto& v : t.violations)
      if (static_cast<long long>(out.violations.size()) < MAX_VIOLATIONS_KEPT) out.violations.push_back(v);
  }
  std::map<std::string, uint64_t> first_end;
  for (const Tally& t : tally)
    for (const auto& [ended, id] : t.first_end) {
      auto [at, added] = first_end.emplace(ended, id);
      if (!added) at->second = std::min(at->second, id);
    }
  if (!out.limit_reached && !out.stopped)
    for (const auto& [ended, id] : first_end) out.shortest_end[ended] = witness(parents_of, id, roots);
  std::map<int, std::pair<uint64_t, int>> hits;  // the lowest (state id, move) over the workers
  for (const Tally& t : tally)
    for (const auto& [q, at] : t.hits) {
      auto [it, added] = hits.emplace(q, at);
      if (!added) it->second = std::min(it->second, at);
    }
  if (!out.limit_reached && !out.stopped)
    for (const auto& [q, at] : hits) {
      auto path = witness(parents_of, at.first, roots);  // to the edge's source, then the edge
      const Core& core = *roots[static_cast<size_t>(path.first)];
      State s = core.explore_root();
      for (int id : path.second) core.explore_step(s, id);
      std::vector<int> ids;
      moves_of(core, s, ids);
      path.second.push_back(ids.at(static_cast<size_t>(at.second)));
      out.query_witness[q < predicates::N_STEP_QUERIES ? predicates::STEP_NAMES[q]
                                                       : predicates::MONITOR_NAMES[q - predicates::N_STEP_QUERIES]] = path;
    }
  // the rules fired: whole only where every edge was judged (a thread stops judging once it
  // has met every STEP query; a monitor is folded on every edge)
  out.rules_collected = monitors != 0 || options.queries;
  for (const Tally& t : tally) out.rules_collected = out.rules_collected && (monitors != 0 || t.unmet != 0);
  if (out.rules_collected) {
    std::set<std::string> rules;
    for (const Tally& t : tally) rules.insert(t.fired.begin(), t.fired.end());
    out.rules_fired.assign(rules.begin(), rules.end());
  }
  out.parents_bytes = parents_of.nbytes();
  out.states = states;
  if (!out.limit_reached && !out.stopped) out.depth = depth;
  for (const SeenSet& set : seen) out.seen_bytes += set.nbytes();
  out.json_error = check.error;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.workers = workers;
  return out;
}

// ---- A shard of a run over processes (explore.hpp Shard) ------------------------------------
//
// An outbox is the children one shard found for one owner, one record after another: the
// fingerprint (8 bytes), the parent's id (8), the move's index (2), the packed state's
// length (4) and its bytes, little-endian. `keep` reads them back in order, refusing a
// record that runs past its outbox.

struct Shard::Impl {
  std::unique_ptr<Core> core;
  std::vector<State> roots;  // their rules text cleared, as the frontier's states have it
  std::string rules;         // the roots' rules text, for the JSON of a violation's state
  int owner = 0, shards = 1;
  bool check = false;
  SeenSet seen;
  Packed frontier, level;
  std::vector<uint64_t> parent;  // by local id: the parent's id (ROOT_ID for a root)
  std::vector<uint16_t> move;    // and the move's index (a root's: its index among the roots)
  uint64_t frontier_base = 0;    // the local id of the frontier's first state
  long long level_number = 0;    // levels advanced: the depth of the frontier's states
  Tally tally;
  std::map<std::string, long long> end_level;  // what ended the game -> the level it was first met
  State parent_state, child_state;
  std::vector<int> ids;
  std::vector<uint8_t> scratch;
  int owner_of(uint64_t fp) const { return static_cast<int>((fp >> (64 - SeenSet::SEGMENT_BITS)) % shards); }
};

namespace {
template <class T>
void put(std::string& out, T v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  out.append(raw, sizeof(T));
}
template <class T>
T take(const std::string& in, size_t& at) {
  if (in.size() - at < sizeof(T)) throw std::invalid_argument("a shard's outbox ends inside a record");
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}
}  // namespace

Shard::Shard(const std::vector<const Core*>& roots, int owner, int shards, bool check) : impl_(new Impl) {
  if (roots.empty()) throw std::invalid_argument("a shard needs the run's roots");
  if (shards < 1 || shards > 64 || owner < 0 || owner >= shards)
    throw std::invalid_argument("shard " + std::to_string(owner) + " of " + std::to_string(shards) +
                                ": shards must be 1 to 64 and the owner one of them");
  Impl& m = *impl_;
  m.core = roots.front()->explore_clone();
  m.rules = roots.front()->explore_root().rules_json;
  for (const Core* r : roots) {
    m.roots.push_back(r->explore_root());
    m.roots.back().rules_json.clear();
  }
  m.owner = owner;
  m.shards = shards;
  m.check = check;
  m.parent_state = m.child_state = m.roots.front();
}

Shard::~Shard() = default;

long long Shard::seed() {
  Impl& m = *impl_;
  if (!m.parent.empty()) throw std::logic_error("a shard is seeded once");
  for (size_t i = 0; i < m.roots.size(); ++i) {
    uint64_t fp = fingerprint(m.roots[i]);
    if (m.owner_of(fp) != m.owner || !m.seen.add(fp)) continue;
    m.frontier.add(m.roots[i], PLANT_NONE);
    m.parent.push_back(ROOT_ID);
    m.move.push_back(static_cast<uint16_t>(i));
  }
  return static_cast<long long>(m.parent.size());
}

std::vector<std::string> Shard::expand() {
  Impl& m = *impl_;
  std::vector<std::string> boxes(static_cast<size_t>(m.shards));
  auto named = [&m](const State& at, const char* where) {
    for (const auto& v : m.tally.found) {
      if (m.tally.violation_count++ >= MAX_VIOLATIONS_KEPT) continue;
      State shown = at;
      shown.rules_json = m.rules;
      m.tally.violations.push_back(v.invariant + " [" + v.component + "]: expected " + v.expected + ", found " +
                                   v.actual + where + m.core->explore_json(shown));
    }
  };
  const size_t ends_before = m.tally.first_end.size();
  for (size_t index = 0; index < m.frontier.size(); ++index) {
    pack::unpack(m.frontier.at(index), m.parent_state);
    const uint64_t self = m.frontier_base + index;
    const uint64_t id = global_id(m.owner, self);
    auto emit = [&](const State& child, size_t k, const Values&) {
      m.scratch.clear();
      pack::pack(child, m.scratch);
      uint64_t fp = fingerprint_packed(m.scratch);
      std::string& box = boxes[static_cast<size_t>(m.owner_of(fp))];
      put<uint64_t>(box, fp);
      put<uint64_t>(box, id);
      put<uint16_t>(box, static_cast<uint16_t>(k));
      put<uint32_t>(box, static_cast<uint32_t>(m.scratch.size()));
      box.append(reinterpret_cast<const char*>(m.scratch.data()), m.scratch.size());
    };
    expand_state(*m.core, m.check, false, 0u, Values{}, m.tally, m.parent_state, m.child_state, self,
                 m.ids, named, emit);
  }
  if (m.tally.first_end.size() != ends_before)  // a kind of end met for the first time: at this level
    for (const auto& [ended, local] : m.tally.first_end) m.end_level.emplace(ended, m.level_number);
  return boxes;
}

long long Shard::keep(const std::vector<std::string>& boxes) {
  Impl& m = *impl_;
  if (boxes.size() != static_cast<size_t>(m.shards))
    throw std::invalid_argument("keep takes one outbox per shard (" + std::to_string(m.shards) + "), not " +
                                std::to_string(boxes.size()));
  // every record read and checked before any is kept: its framing, its owner, and its
  // fingerprint recomputed from its bytes (a corrupt record is refused, never unpacked later)
  struct Record {
    uint64_t fp, parent;
    uint16_t move;
    const char* bytes;
    uint32_t length;
  };
  std::vector<Record> records;
  std::vector<uint8_t> padded;
  for (const std::string& box : boxes) {
    size_t at = 0;
    while (at < box.size()) {
      Record r{};
      r.fp = take<uint64_t>(box, at);
      r.parent = take<uint64_t>(box, at);
      r.move = take<uint16_t>(box, at);
      r.length = take<uint32_t>(box, at);
      if (r.length == 0 || box.size() - at < r.length)
        throw std::invalid_argument("a shard's outbox ends inside a state");
      if (m.owner_of(r.fp) != m.owner) throw std::invalid_argument("a shard was sent a state it does not own");
      r.bytes = box.data() + at;
      padded.assign(r.bytes, r.bytes + r.length);
      padded.resize(padded.size() + 16, 0);  // a varint read past a damaged end stops on the zeros
      const uint8_t* body = pack::after_round(padded.data());
      if (body > padded.data() + r.length ||
          fingerprint_bytes(body, padded.data() + r.length) != r.fp)
        throw std::invalid_argument("a shard's outbox holds a state whose bytes are not its fingerprint's");
      records.push_back(r);
      at += r.length;
    }
  }
  long long added = 0;
  for (const Record& r : records) {
    if (!m.seen.add(r.fp)) continue;
    m.level.starts.push_back(m.level.bytes.size());
    m.level.bytes.insert(m.level.bytes.end(), r.bytes, r.bytes + r.length);
    m.parent.push_back(r.parent);
    m.move.push_back(r.move);
    ++added;
  }
  if (m.parent.size() >= (uint64_t(1) << 40)) throw std::length_error("a shard holds more than 2^40 states");
  return added;
}

std::pair<long long, long long> Shard::advance() {
  Impl& m = *impl_;
  m.frontier_base += m.frontier.size();
  std::swap(m.frontier, m.level);
  m.level.clear();
  ++m.level_number;
  return {static_cast<long long>(m.frontier.size()), static_cast<long long>(m.frontier.bytes.size())};
}

std::pair<uint64_t, int> Shard::parent_of(uint64_t local) const {
  const Impl& m = *impl_;
  if (local >= m.parent.size())
    throw std::out_of_range("shard " + std::to_string(m.owner) + " holds no state " + std::to_string(local));
  return {m.parent[local], m.move[local]};
}

std::vector<int> Shard::replay(int root, const std::vector<int>& moves) const {
  const Impl& m = *impl_;
  State s = m.roots.at(static_cast<size_t>(root));
  std::vector<int> ids, out;
  for (int k : moves) {
    moves_of(*m.core, s, ids);
    out.push_back(ids.at(static_cast<size_t>(k)));
    m.core->explore_step(s, out.back());
  }
  return out;
}

py::dict Shard::counts() const {
  const Impl& m = *impl_;
  const Tally& t = m.tally;
  py::dict d;
  d["states"] = static_cast<long long>(m.parent.size());
  d["edges"] = t.edges;
  d["deadlocks"] = t.deadlocks;
  d["engine_exceptions"] = t.engine_exceptions;
  d["first_exception"] = t.first_exception;
  d["terminal"] = t.terminal;
  d["states_checked"] = t.checked;
  d["edges_checked"] = t.edges_checked;
  d["violation_count"] = t.violation_count;
  d["violations"] = t.violations;
  d["seen_bytes"] = m.seen.nbytes();
  d["parents_bytes"] =
      static_cast<long long>(m.parent.capacity() * sizeof(uint64_t) + m.move.capacity() * sizeof(uint16_t));
  py::dict ends;  // what ended the game -> (the level it was first met, the lowest id so ended)
  for (const auto& [ended, local] : t.first_end)
    ends[py::str(ended)] = py::make_tuple(m.end_level.at(ended), global_id(m.owner, local));
  d["first_end"] = ends;
  return d;
}

void bind_seen(py::module_& m) {
  py::class_<SeenSet>(m, "SeenSet")
      .def(py::init<>())
      .def("add", &SeenSet::add, py::arg("fingerprint"))
      .def("__len__", &SeenSet::size)
      .def_property_readonly("nbytes", &SeenSet::nbytes)
      .def("keys", &SeenSet::keys);
}

void bind_checkpoints(py::module_& m) {
  py::class_<Checkpointing>(m, "Checkpointing")
      .def(py::init([](std::string save, long long every, std::string resume, std::string header) {
             return Checkpointing{std::move(save), every, std::move(resume), std::move(header)};
           }),
           py::arg("save") = "", py::arg("every") = 500000, py::arg("resume") = "", py::arg("header") = "")
      .def_readonly("save", &Checkpointing::save)
      .def_readonly("every", &Checkpointing::every)
      .def_readonly("resume", &Checkpointing::resume)
      .def_readonly("header", &Checkpointing::header);
  m.def("build_id", &checkpoint::build_id,
        "The SHA-256 of the C++ sources compiled into this extension (setup.py); '' when built without it.");
  py::register_exception<checkpoint::DamagedError>(m, "CheckpointDamagedError", PyExc_ValueError);
  py::register_exception<checkpoint::WriteError>(m, "CheckpointUnwritableError", PyExc_OSError);
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
  d["stopped"] = c.stopped;
  d["frontier"] = c.frontier;
  d["json_error"] = c.json_error;
  d["seconds"] = c.seconds;
  d["workers"] = c.workers;
  d["frontier_bytes"] = c.frontier_bytes;
  d["parents_bytes"] = c.parents_bytes;
  d["shortest_end"] = c.shortest_end;
  d["query_witness"] = c.query_witness;
  if (c.rules_collected)
    d["rules_fired"] = c.rules_fired;
  else
    d["rules_fired"] = py::none();
  d["states_checked"] = c.states_checked;
  d["edges_checked"] = c.edges_checked;
  d["violation_count"] = c.violation_count;
  d["violations"] = c.violations;
  d["checkpoints_written"] = c.checkpoints_written;
  d["checkpoint_bytes"] = c.checkpoint_bytes;
  d["saved"] = c.saved;
  d["resumed_states"] = c.resumed_states;
  d["resumed_depth"] = c.resumed_depth;
  return d;
}

}  // namespace village::explore
