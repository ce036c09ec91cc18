// pack.hpp: a State's fields as varints, in one fixed order (the struct's), written by
// `Writer` and read back by `Reader` with the same visit (`fields`), so the two cannot
// drift apart: one template walks the state for both.

#include "pack.hpp"

#include <algorithm>
#include <cstring>

namespace village::pack {

namespace {

// Writes through a pointer into room made in `out` ahead of it (`room`), not byte by byte
// with push_back: a byte store through a vector may alias the vector's own end pointer, so
// push_back reloads it at every byte; the pack is a tenth of the explorer's loop.
struct Writer {
  std::vector<uint8_t>& out;
  size_t used;  // the bytes of `out` written so far; past them, room not yet written
  explicit Writer(std::vector<uint8_t>& o) : out(o), used(o.size()) { out.resize(used + 256); }
  ~Writer() { out.resize(used); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  uint8_t* room(size_t n) {  // at least n bytes to write at the returned place
    if (used + n > out.size()) out.resize(std::max(out.size() * 2, used + n));
    return out.data() + used;
  }
  void num(long long v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);  // zigzag
    uint8_t* p = room(10);
    uint8_t* const start = p;
    while (z >= 0x80) {
      *p++ = static_cast<uint8_t>(z | 0x80);
      z >>= 7;
    }
    *p++ = static_cast<uint8_t>(z);
    used += static_cast<size_t>(p - start);
  }
  void i(const int& v) { num(v); }
  void b(const bool& v) {
    *room(1) = v ? 1 : 0;
    ++used;
  }
  void text(const std::string& s) {
    num(static_cast<long long>(s.size()));
    std::memcpy(room(s.size()), s.data(), s.size());
    used += s.size();
  }
  // a field the canonical JSON leaves out in some states: written as its default there, so
  // that two states the JSON calls equal pack to the same bytes
  void flag_if(const bool& v, bool written) { b(written && v); }
  void text_if(const std::string& s, bool written) {
    if (written) return text(s);
    num(0);
  }
  void ints(const std::vector<int>& xs) {
    num(static_cast<long long>(xs.size()));
    for (int x : xs) num(x);
  }
  template <size_t N>
  void tally(const std::array<int, N>& xs) {
    for (int x : xs) num(x);
  }
  template <class T, class F>
  void optional(const std::optional<T>& o, F&& inner) {
    b(o.has_value());
    if (o) inner(*o);
  }
  template <class T, class F>
  void list(const std::vector<T>& xs, F&& each) {
    num(static_cast<long long>(xs.size()));
    for (const T& x : xs) each(x);
  }
};

struct Reader {
  const uint8_t* at;
  long long num() {
    uint64_t z = 0;
    int shift = 0;
    while (true) {
      uint8_t byte = *at++;
      z |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7;
    }
    return static_cast<long long>((z >> 1) ^ (~(z & 1) + 1));
  }
  void i(int& v) { v = static_cast<int>(num()); }
  void b(bool& v) { v = *at++ != 0; }
  void text(std::string& s) {
    size_t n = static_cast<size_t>(num());
    s.assign(reinterpret_cast<const char*>(at), n);
    at += n;
  }
  void flag_if(bool& v, bool) { b(v); }
  void text_if(std::string& s, bool) { text(s); }
  void ints(std::vector<int>& xs) {
    xs.resize(static_cast<size_t>(num()));
    for (int& x : xs) x = static_cast<int>(num());
  }
  template <size_t N>
  void tally(std::array<int, N>& xs) {
    for (int& x : xs) x = static_cast<int>(num());
  }
  template <class T, class F>
  void optional(std::optional<T>& o, F&& inner) {
    bool there = false;
    b(there);
    if (!there) {
      o.reset();
      return;
    }
    if (!o) o.emplace();
    inner(*o);
  }
  template <class T, class F>
  void list(std::vector<T>& xs, F&& each) {
    xs.resize(static_cast<size_t>(num()));
    for (T& x : xs) each(x);
  }
};

// Every field of a State but its readings and rules text, in one order, for both directions
// (`S` is State or const State, `IO` a Writer or a Reader).
template <class IO, class S>
void fields(IO& io, S& s) {
  io.i(s.round);  // first: a state's identity is every byte after it (explore.cpp fingerprint)
  io.optional(s.carla, [&](auto& c) {
    io.i(c.space);
    io.i(c.last_cube);
    io.ints(c.fate);
    io.i(c.look_for);
    io.i(c.look_from);
    io.i(c.took_from);
    io.b(c.reacted);
    io.b(c.quill);
    io.b(c.well_turn);
    io.i(c.end_in_market_of);
    io.i(c.action_waits);
  });
  io.flag_if(s.turn_took_last_cube, s.turn != NONE);  // the JSON writes it only with a turn
  io.i(s.start_player);
  io.i(s.next_start_holder);
  io.tally(s.supply_cubes);
  io.i(s.supply_coins);
  io.i(s.supply_grain);
  io.tally(s.supply_goods);
  io.tally(s.green_bag);
  for (auto& space : s.spaces) io.tally(space);
  io.ints(s.market_available);
  io.ints(s.market_waiting);
  io.ints(s.customer_pile);
  io.i(s.bag_monks);
  io.i(s.monks_aside);
  io.list(s.players, [&](auto& p) {
    io.text(p.colour);
    io.ints(p.members);
    io.i(p.grain);
    io.i(p.coins);
    io.i(p.lifetime);
    io.i(p.prestige);
    io.tally(p.cubes);
    io.tally(p.goods);
    io.ints(p.customers);
    io.list(p.markers, [&](auto& m) { io.text(m); });
  });
  auto& q = s.pending;
  io.i(q.kind);
  io.i(q.seat);
  io.i(q.space);
  io.i(q.remaining);
  io.i(q.position);
  io.i(q.max_stage);
  io.i(q.slot);
  io.text_if(q.action, q.kind == CHOOSE_PAYMENT);  // the JSON writes it only for a payment
  io.i(s.turn);
  io.optional(s.market_day, [&](auto& m) {
    io.i(m.trigger);
    io.i(m.current);
    io.i(m.held_deaths);
    io.ints(m.passed);
    io.b(m.trigger_sold);
    io.b(m.closed);
    io.b(m.first_pass_waived);
  });
  io.optional(s.mass, [&](auto& m) {
    io.i(m.bought);
    io.b(m.final);
    io.b(m.in_final_actions);
    io.ints(m.stopped);
  });
  io.ints(s.deaths_owed);
  io.i(s.end_triggered_by);
  io.optional(s.final_turns, [&](auto& f) { io.ints(f); });
}

}  // namespace

void pack(const State& s, std::vector<uint8_t>& out) {
  Writer w(out);
  fields(w, s);
}

const uint8_t* unpack(const uint8_t* at, State& into) {
  Reader r{at};
  fields(r, into);
  return r.at;
}

const uint8_t* after_round(const uint8_t* at) {
  Reader r{at};
  r.num();
  return r.at;
}

}  // namespace village::pack
