// The native explorer's breadth-first loop (issue 40, item 1): every state of a reduced
// configuration reachable from its set-ups, visited in C++ over the native core, with the
// counts of village_rules.explore.search.explore (states, edges, levels, terminal states by
// what ended the game, deadlocks). A line for line reading of that loop's counting, without
// its invariants, queries, monitors or witnesses (explore.cpp says what they would need).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "monitors.hpp"
#include "state.hpp"

namespace village::explore {

// What the explorer asks of the core (core.cpp's Game): its steps on a state it is handed,
// so that the loop is written once, apart from the rules.
struct Core {
  virtual ~Core() = default;
  virtual const State& explore_root() const = 0;  // the state loaded (one set-up)
  virtual void explore_legal(const State& s, std::vector<int>& out) const = 0;  // legal ids, in order
  virtual std::vector<std::tuple<int, long long, long long>> explore_chance(const State& s) const = 0;
  virtual void explore_step(State& s, int id) const = 0;  // perform and settle an id known to be allowed
  // explore_step, with the catalogue's STEP queries of `j.which` judged after every sub-step
  // (predicates.hpp) and the monitor `j.monitor` folded over them (monitors.hpp): the answers
  // in `j` (`s` holds `before` when called; `before` is not changed)
  virtual void explore_step_judged(const State& before, State& s, int id, predicates::Judging& j) const = 0;
  virtual int explore_chronicle_free(const State& s, int category) const = 0;
  virtual int explore_graveyard_free(const State& s) const = 0;
  virtual std::string explore_json(const State& s) const = 0;  // the reference's canonical JSON
  virtual std::unique_ptr<Core> explore_clone() const = 0;  // a copy for another worker thread
  // checks.cpp's state invariants of `s`, appended to `out`
  virtual void explore_violations(const State& s, std::vector<checks::Violation>& out) const = 0;
  // checks.cpp's transition invariants of the step `before` --id--> `after`, appended to `out`
  virtual void explore_transition_violations(const State& before, int id, const State& after,
                                             std::vector<checks::Violation>& out) const = 0;
};

// A planted bug (tests): a field left out of the fingerprint, so that it merges distinct
// states and the counts must change. The players' life-time: not a function of the other
// fields, as the supply's grain or coins are (their totals are fixed), nor as good as one
// in the shipped configurations, as the prestige or the round counter are there.
// Or a packing (pack.hpp) that loses the players' life-time, so that the unpacked states
// differ from those packed.
enum Plant { PLANT_NONE, PLANT_OMIT_PLAYER_LIFETIME, PLANT_PACK_FORGETS_PLAYER_LIFETIME };

// The 64-bit fingerprint of a state: the bytes of its canonical packing after the round
// (pack.hpp), folded through splitmix64's mixer from a fixed start (the same in every process
// and on every machine: no pointer, no seed).
uint64_t fingerprint(const State& s, int plant = PLANT_NONE);

// The seen set: every fingerprint met, in about 7 to 9 bytes each (10 at most from a
// million states up; `nbytes`). Quotiented: the fingerprint's top 16 bits pick one of
// 65,536 segments (the directory, about 1 MiB), and the segment keeps only the low 48 bits,
// six bytes a slot, in its own open-addressing table (linear probing, at most 80% full,
// grown by 15% at a time, so at least 69% full: 6 / 0.69 = 8.7 bytes a state). Segments
// grow one at a time, so no step rehashes the whole set. Exact: a set of 64-bit values, with
// a remainder of 0 (the empty slot's mark) kept as a flag of its segment. Why not one table
// of 8-byte fingerprints (seen.py): 80% full and grown by half, it holds 10 to 15 bytes a
// state, and 10^8 states need it within memory beside the frontier.
class SeenSet {
 public:
  static constexpr int SEGMENT_BITS = 16;
  static constexpr size_t SLOT_BYTES = 6;
  SeenSet();
  bool add(uint64_t fp);  // whether `fp` was new
  // asks the cache for the slot `add(fp)` will probe first, so that a loop adding many
  // fingerprints waits for memory once for several (the set outgrows the caches past 10^6)
  void prefetch(uint64_t fp) const;
  long long size() const { return static_cast<long long>(count_); }
  long long nbytes() const;  // the slots, the directory and the zero flags
  std::vector<uint64_t> keys() const;  // every fingerprint held, by segment
  // segment `index`'s fingerprints but the one with remainder 0, as remainders, appended to
  // `out`, and whether it holds that one (a checkpoint writes the set segment by segment)
  bool segment(size_t index, std::vector<uint64_t>& out) const;

 private:
  struct Segment {
    std::unique_ptr<uint8_t[]> slots;  // `capacity` slots of SLOT_BYTES, 0 meaning empty
    uint32_t count = 0, capacity = 0;
  };
  static void place(Segment& seg, uint64_t rem);
  void grow(Segment& seg);
  std::vector<Segment> segments_;
  std::vector<bool> zeros_;
  size_t count_ = 0, slot_bytes_ = 0;
};

void bind_seen(pybind11::module_& m);  // _core.SeenSet, for the tests of the set itself
// _core.Checkpointing (the options above), _core.build_id() and the exceptions a
// checkpoint raises (_core.CheckpointDamagedError, _core.CheckpointUnwritableError)
void bind_checkpoints(pybind11::module_& m);

// Saving the run and resuming it (checkpoint.hpp for the file; explore.cpp `run` for when).
// The header is the run's identity, given by the caller (explore/native_checkpoint.py): a
// checkpoint is resumed only by a run with the same header, byte for byte.
struct Checkpointing {
  std::string save;        // "": none; else the file written at the first level boundary after
                           // every `every` states, and where the run stops early (stop, budget)
  long long every = 500000;
  std::string resume;      // "": start from the roots; else the checkpoint to go on from
  std::string header;
};

struct Options {
  long long max_states = 4000000;
  bool check = false;  // every state's invariants (checks.hpp), each distinct state once, as it is
                       // expanded, and every edge's transition invariants
  int workers = 1;  // threads, each the owner of the fingerprints whose segment is its number modulo workers
  int plant = PLANT_NONE;
  bool check_json = false;  // also key every state by its JSON (round 0): a fingerprint that merges
                            // or splits what the JSON does not is an error naming both states
  std::function<void(long long, long long, long long, long long)> progress;  // depth, states, edges, frontier
  std::function<bool()> stop;  // asked between batches: true stops the loop there (Counts::stopped)
  bool queries = false;  // the catalogue's STEP queries judged on every edge (predicates.hpp), as
                         // search.py `expand` judges them; a shortest witness of each met
  uint32_t monitors = 0;  // monitors (bits in monitors.hpp MonitorKind order): the product of the
                         // graph and their values is explored (search.py `explore(monitor=)` for
                         // one), each one's query decided
  Checkpointing checkpoint;
};

struct Counts {
  long long roots = 0, states = 0, edges = 0, depth = 0, deadlocks = 0, engine_exceptions = 0;
  std::map<std::string, long long> terminal;  // distinct terminal states by what ended the game
  long long seen_bytes = 0;
  bool limit_reached = false;
  bool stopped = false;         // `stop` said so: the counts are a part run's
  long long frontier = 0;       // states still to expand when the limit was reached
  std::string first_exception;  // the first engine exception's message
  std::string json_error;       // check_json: the first merge or split, naming both states
  double seconds = 0;           // wall seconds of the loop (the roots' loading excluded)
  int workers = 1;
  long long states_checked = 0, edges_checked = 0, violation_count = 0;
  std::vector<std::string> violations;  // the first few, each "<violation> in <the state's JSON>"
  long long frontier_bytes = 0;  // the largest level's packed states (pack.hpp), in bytes
  long long parents_bytes = 0;   // each state's parent and move (6 bytes a state), for witnesses
  // what ended the game -> a shortest game so ended: its root's index and the action ids
  std::map<std::string, std::pair<int, std::vector<int>>> shortest_end;
  // Options::queries: each STEP query met on some edge -> a shortest witness (its root's index
  // and the action ids, the last the edge's), as search.py's verdicts give it
  std::map<std::string, std::pair<int, std::vector<int>>> query_witness;
  // Options::queries or monitors: every rule ID the edges fired (sorted), when every edge was
  // judged (each thread had a STEP query still unmet at its end, or a monitor was folded on
  // every edge), so that a query whose rules no edge fires is vacuous; else not collected
  std::vector<std::string> rules_fired;
  bool rules_collected = false;
  long long checkpoints_written = 0;  // files written (Options::checkpoint.save)
  long long checkpoint_bytes = 0;     // the last one's size
  bool saved = false;                 // the run stopped early and saved where it stopped
  long long resumed_states = -1;      // resumed: the states and levels the checkpoint held
  long long resumed_depth = -1;
};

// One shard of a run spread over processes or machines (explore/native_shards.py: Ray
// actors, or shards in one process for the tie): the states whose fingerprints it owns
// (their segment modulo `shards`, as a thread owns them in `run`), with their seen set,
// their parents and its part of each level, packed. A coordinator drives every shard
// through the same barrier phases as `run`'s threads: `seed`; then per level `expand`
// (every state of its frontier, each child sent to its owner: one outbox per shard, in
// bytes) and `keep` (each shard's outboxes for it, in shard order: the new ones form its
// part of the next level), then `advance`. A state's id is its owner in the top 24 bits
// and its index among the owner's states below (`global_id`).
class Shard {
 public:
  Shard(const std::vector<const Core*>& roots, int owner, int shards, bool check);
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;
  long long seed();                                       // the roots it owns (deduplicated): how many
  std::vector<std::string> expand();                      // one outbox per shard, in shard order
  long long keep(const std::vector<std::string>& boxes);  // the outboxes for it, in shard order: new states
  // the level kept is the frontier now: its states and their packed bytes
  std::pair<long long, long long> advance();
  std::pair<uint64_t, int> parent_of(uint64_t local) const;  // (the parent's id or ROOT_ID, the move's index)
  std::vector<int> replay(int root, const std::vector<int>& moves) const;  // move indexes -> action ids
  pybind11::dict counts() const;
  static constexpr uint64_t ROOT_ID = ~uint64_t(0);
  static uint64_t global_id(int owner, uint64_t local) { return (uint64_t(owner) << 40) | local; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

Counts run(const std::vector<const Core*>& roots, const Options& options);
pybind11::dict to_dict(const Counts& counts);
int plant_of(const std::string& name);  // "" or a Plant's name; invalid_argument otherwise

}  // namespace village::explore
