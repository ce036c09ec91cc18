// The observation tensor, natively (observation.hpp): each segment a reading of its lines in
// village_rules/adapters/observation.py observation_tensor, and of observation_parts.py
// (pending_entries, carla_ones) for the pending step and Carla's board.

#include "observation.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "solo.hpp"

namespace py = pybind11;

namespace village::observation {

namespace {

// Writes the tensor segment by segment, each checked against the layout handed over from
// Python: its name, its offset, and every entry inside its size.
class Writer {
 public:
  Writer(const std::vector<ObservationSegment>& layout, std::vector<float>& out) : layout_(layout), out_(out) {
    const ObservationSegment& last = layout.back();
    out_.assign(static_cast<size_t>(last.offset + last.size), 0.0F);
  }

  // The next segment is `name`, starting where the last one ended.
  void begin(const std::string& name) {
    if (next_ >= layout_.size())
      throw std::logic_error("observation: segment '" + name + "' is past the end of the layout");
    const ObservationSegment& seg = layout_[next_];
    if (seg.name != name || seg.offset != at_)
      throw std::logic_error("observation: segment '" + name + "' written at " + std::to_string(at_) +
                             ", where the layout has '" + seg.name + "' at " + std::to_string(seg.offset));
    name_ = &seg.name;
    end_ = seg.offset + seg.size;
    ++next_;
  }
  void put(int value) {
    room(1);
    out_[at_++] = static_cast<float>(value);
  }
  void flag(bool on) { put(on ? 1 : 0); }
  // the entries of the current segment not written yet
  int left() const { return end_ - at_; }
  void zeros(int size) {
    room(size);
    at_ += size;
  }
  // `size` entries, 1 at `index` (in 0..size-1)
  void one_hot(int size, int index) {
    room(size);
    if (index < 0 || index >= size)
      throw std::logic_error("observation: segment '" + *name_ + "': a one-hot index " + std::to_string(index) +
                             " outside 0.." + std::to_string(size - 1));
    out_[at_ + index] = 1.0F;
    at_ += size;
  }
  // one-hot over `size` entries, the last for none (NONE)
  void one_hot_or_none(int size, int index) { one_hot(size, index == NONE ? size - 1 : index); }
  // `size` entries, counts set at some of them (0..size-1), left 0 elsewhere
  float* block(int size) {
    room(size);
    float* first = out_.data() + at_;
    at_ += size;
    return first;
  }
  void cubes(const std::array<int, N_CUBES>& counts) {
    for (int c = 0; c < N_CUBES; ++c) put(counts[c]);
  }
  void goods(const std::array<int, N_GOODS>& counts) {
    for (int g = 0; g < N_GOODS; ++g) put(counts[g]);
  }
  // every segment written, to the layout's end
  void finish() const {
    if (next_ != layout_.size())
      throw std::logic_error("observation: segment '" + layout_[next_].name + "' of the layout is not written");
    if (at_ != end_) throw std::logic_error("observation: segment '" + *name_ + "' is not written to its end");
  }

 private:
  void room(int size) const {
    if (name_ == nullptr || at_ + size > end_)
      throw std::logic_error("observation: more entries than segment '" + (name_ ? *name_ : std::string("?")) +
                             "' holds");
  }
  const std::vector<ObservationSegment>& layout_;
  std::vector<float>& out_;
  size_t next_ = 0;
  int at_ = 0, end_ = 0;
  const std::string* name_ = nullptr;
};

// the index of `id` in an index table (-1 / out of range: not there), or a refusal naming `what`
int index_in(const std::vector<int>& table, int id, const char* what) {
  int index = id >= 0 && static_cast<size_t>(id) < table.size() ? table[id] : -1;
  if (index < 0) throw std::logic_error(std::string("observation: no index for the ") + what + " " + std::to_string(id));
  return index;
}

// observation_parts.pending_entries: kind, seat, space, number, paid
void pending(Writer& w, const Tables& t, const ObservationTables& o, const State& s, int n) {
  const Pending& p = s.pending;
  w.begin("pending_kind");
  int kind = o.kind_index[p.kind];
  if (kind < 0) throw std::logic_error(std::string("observation: no index for the pending kind ") + KIND_NAMES[p.kind]);
  w.one_hot(w.left(), kind);  // over PENDING_KINDS, or SOLO_PENDING_KINDS in a solo game (the segment's size)
  w.begin("pending_seat");
  if (p.seat == NONE) w.zeros(n);
  else w.one_hot(n, p.seat);
  w.begin("pending_space");
  if (p.space == NONE) w.zeros(N_SPACES);
  else w.one_hot(N_SPACES, p.space);
  w.begin("pending_number");
  int number = 0;
  switch (o.number[p.kind]) {
    case NUMBER_REMAINING: number = p.remaining; break;
    case NUMBER_POSITION: number = p.position; break;
    case NUMBER_MAX_STAGE: number = p.max_stage; break;
    case NUMBER_SLOT: number = p.slot; break;
    default: break;
  }
  if (number == NONE)
    throw std::logic_error(std::string("observation: the pending ") + KIND_NAMES[p.kind] + " has no number");
  w.put(number);
  w.begin("pending_payment");
  if (p.kind == CHOOSE_PAYMENT) {
    auto it = t.ids.find(p.action);
    if (it == t.ids.end()) throw std::logic_error("observation: the payment's action is not an action: " + p.action);
    w.put(1 + it->second);
  } else {
    w.put(0);
  }
}

// observation_parts.carla_ones: Carla's board (SOLO-04 .. SOLO-28)
void carla(Writer& w, const Tables& t, const CarlaBoard& c) {
  w.begin("carla_space");
  w.one_hot(t.solo.track_spaces + 1, c.space < 0 ? t.solo.track_spaces : c.space);
  w.begin("carla_last_cube");
  w.one_hot_or_none(N_CUBES + 1, c.last_cube);
  w.begin("carla_fate");
  for (int shown : c.fate) w.one_hot_or_none(N_FATE_TILES + 1, shown);
  w.begin("carla_owed");
  w.one_hot_or_none(N_CUBES + 1, c.look_for);
  w.one_hot_or_none(N_SPACES + 1, c.look_from);
  w.one_hot_or_none(N_SPACES + 1, c.took_from);
  w.flag(c.reacted);
  w.flag(c.quill);
  w.flag(c.well_turn);
  w.flag(c.end_in_market_of == solo::CARLA);  // the end triggered in her market day (END-04)
}

bool little_endian_host() {
  const std::uint32_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

std::string little_endian(const std::vector<float>& values) {
  std::string out(values.size() * 4, '\0');
  if (little_endian_host()) {
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  return out;
}

}  // namespace

int plant_of(const std::string& name) {
  if (name.empty()) return PLANT_NONE;
  if (name == "customer pile forgets its last tile") return PLANT_PILE_FORGETS_LAST;
  throw std::invalid_argument("no observation plant named '" + name + "'");
}

std::string tensor_bytes(const Tables& t, const State& s, int observer, int current, int plant) {
  if (!t.observation)
    throw NotSupportedError("these tables have no observation data: set_observation_tables was not called for them");
  const ObservationTables& o = *t.observation;
  const int n = static_cast<int>(s.players.size());
  if (observer < 0 || observer >= n)
    throw std::invalid_argument("observer: must be a seat 0.." + std::to_string(n - 1) + ", got " +
                                std::to_string(observer));
  auto found = o.layouts.find(s.carla ? 1 : n);
  if (found == o.layouts.end())
    throw NotSupportedError("no observation layout for " + std::to_string(n) + " seats in these tables");
  std::vector<float> out;
  Writer w(found->second, out);
  w.begin("observer");
  w.one_hot(n, observer);
  w.begin("current_player");
  w.one_hot(n + 2, current >= 0 ? current : (current == -1 ? n : n + 1));  // CHANCE, else TERMINAL
  w.begin("round");
  w.put(s.round);
  w.begin("start_player");
  w.one_hot(n, s.start_player);
  w.begin("next_start_holder");
  w.one_hot(n + 1, s.next_start_holder == NONE ? n : s.next_start_holder);
  w.begin("supply_cubes");
  w.cubes(s.supply_cubes);
  w.begin("supply_coins_grain");
  w.put(s.supply_coins);
  w.put(s.supply_grain);
  w.begin("supply_goods");
  w.goods(s.supply_goods);
  w.begin("green_bag");
  w.cubes(s.green_bag);
  w.begin("spaces");
  for (const auto& space : s.spaces) w.cubes(space);
  w.begin("market_available");
  for (int tile : s.market_available) w.one_hot(o.tiles + 1, tile == NONE ? o.tiles : index_in(o.tile_index, tile, "tile"));
  w.begin("market_waiting");
  for (int tile : s.market_waiting) w.one_hot(o.tiles + 1, tile == NONE ? o.tiles : index_in(o.tile_index, tile, "tile"));
  w.begin("customer_pile");
  float* pile = w.block(o.tiles);
  size_t in_pile = s.customer_pile.size();
  if (plant == PLANT_PILE_FORGETS_LAST && in_pile > 0) --in_pile;
  for (size_t k = 0; k < in_pile; ++k) pile[index_in(o.tile_index, s.customer_pile[k], "tile")] = 1.0F;
  w.begin("black_bag");
  w.put(s.bag_monks);
  w.put(s.monks_aside);
  const std::vector<int>& member_index = s.carla ? o.solo_member_index : o.member_index;
  const int places = s.carla ? o.solo_places : o.places;  // a member's one-hot: len(locations(data, solo))
  for (int seat = 0; seat < n; ++seat) {
    const Player& p = s.players[seat];
    const std::string prefix = "p" + std::to_string(seat) + "_";
    w.begin(prefix + "members");
    for (int place : p.members) w.one_hot(places, index_in(member_index, place, "member location"));
    w.begin(prefix + "counts");
    w.put(p.grain);
    w.put(p.coins);
    w.put(p.lifetime);
    w.put(p.prestige);
    w.begin(prefix + "cubes");
    w.cubes(p.cubes);
    w.begin(prefix + "goods");
    w.goods(p.goods);
    w.begin(prefix + "customers");
    float* served = w.block(o.tiles);  // per tile: 0, or k when served k-th (the last k, as the reference's dict)
    for (size_t k = 0; k < p.customers.size(); ++k)
      served[index_in(o.tile_index, p.customers[k], "tile")] = static_cast<float>(k + 1);
    w.begin(prefix + "markers");
    float* marked = w.block(static_cast<int>(o.city_index.size()));
    for (const std::string& city : p.markers) {
      auto it = o.city_index.find(city);
      if (it == o.city_index.end()) throw std::logic_error("observation: a marker in no city of the data: " + city);
      marked[it->second] = 1.0F;
    }
  }
  pending(w, t, o, s, n);
  w.begin("turn");
  w.one_hot(n + 1, s.turn == NONE ? n : s.turn);
  w.begin("market_day");
  if (!s.market_day) {
    w.zeros(1 + 3 * n + 3);
  } else {
    const MarketDay& day = *s.market_day;
    w.put(1);
    w.one_hot(n, day.trigger);
    w.one_hot(n, day.current);
    float* passed = w.block(n);  // per seat: 0, or its 1-based place among those who passed
    for (size_t k = 0; k < day.passed.size(); ++k) {
      if (day.passed[k] < 0 || day.passed[k] >= n) throw std::logic_error("observation: a market day passed by no seat");
      passed[day.passed[k]] = static_cast<float>(k + 1);
    }
    w.flag(day.trigger_sold);
    w.put(day.held_deaths);
    w.flag(day.closed);
  }
  w.begin("mass");
  if (!s.mass) {
    w.zeros(3);
  } else {
    w.put(1);
    w.put(s.mass->bought);
    w.flag(s.mass->final);
  }
  w.begin("deaths_owed");
  for (int owed : s.deaths_owed) w.put(owed);
  w.begin("end_triggered_by");
  w.one_hot(n + 1, s.end_triggered_by == NONE ? n : s.end_triggered_by);
  w.begin("final_turns");
  if (!s.final_turns) {
    w.zeros(1 + n);
  } else {
    w.put(1);
    float* place = w.block(n);  // per seat: 0, or its 1-based place in the final turns to come
    for (size_t k = 0; k < s.final_turns->size(); ++k) {
      int seat = (*s.final_turns)[k];
      if (seat < 0 || seat >= n) throw std::logic_error("observation: a final turn of no seat");
      place[seat] = static_cast<float>(k + 1);
    }
  }
  if (s.carla) carla(w, t, *s.carla);
  w.finish();
  return little_endian(out);
}

namespace {

// The static data of the tensor (village_rules.adapters.native_observation.observation_tables),
// added to an edition's native tables once: the tiles in segment order, the member locations
// in the order of the one-hot (multi-player, then solo: [] where the data has no solo mode),
// the cities in data order, SOLO_PENDING_KINDS by name, the field of each kind that has a
// pending_number, and layout(data, players) per playable player count.
void set_observation_tables(const std::shared_ptr<Tables>& tables, const std::vector<int>& tiles,
                            const std::vector<std::string>& locations,
                            const std::vector<std::string>& solo_locations, const std::vector<std::string>& cities,
                            const std::vector<std::string>& kinds, const std::map<std::string, std::string>& numbers,
                            const std::map<int, std::vector<std::tuple<std::string, int, int>>>& layouts) {
  Tables& t = *tables;
  auto o = std::make_shared<ObservationTables>();
  o->tiles = static_cast<int>(tiles.size());
  for (size_t i = 0; i < tiles.size(); ++i) {
    if (tiles[i] < 0) throw std::invalid_argument("a customer tile id below 0");
    if (static_cast<size_t>(tiles[i]) >= o->tile_index.size()) o->tile_index.resize(tiles[i] + 1, -1);
    o->tile_index[tiles[i]] = static_cast<int>(i);
  }
  // the locations interned first (Tables::location appends a text it has not met), then indexed
  std::vector<int> ids, solo_ids;
  for (const auto& text : locations) ids.push_back(t.location(text));
  for (const auto& text : solo_locations) solo_ids.push_back(t.location(text));
  o->places = static_cast<int>(ids.size());
  o->solo_places = static_cast<int>(solo_ids.size());
  o->member_index.assign(t.locations.size(), -1);
  o->solo_member_index.assign(t.locations.size(), -1);
  for (size_t i = 0; i < ids.size(); ++i) o->member_index[ids[i]] = static_cast<int>(i);
  for (size_t i = 0; i < solo_ids.size(); ++i) o->solo_member_index[solo_ids[i]] = static_cast<int>(i);
  for (size_t i = 0; i < cities.size(); ++i) o->city_index[cities[i]] = static_cast<int>(i);
  o->kind_index.fill(-1);
  for (size_t i = 0; i < kinds.size(); ++i) {
    int kind = -1;
    for (int k = 0; k < N_KINDS; ++k)
      if (kinds[i] == KIND_NAMES[k]) kind = k;
    if (kind < 0) throw std::invalid_argument("an unknown pending kind '" + kinds[i] + "'");
    o->kind_index[kind] = static_cast<int>(i);
  }
  o->number.fill(NUMBER_NONE);
  static const std::pair<const char*, int> fields[] = {
      {"remaining", NUMBER_REMAINING}, {"position", NUMBER_POSITION}, {"max_stage", NUMBER_MAX_STAGE},
      {"slot", NUMBER_SLOT}};
  for (const auto& [kind_name, field] : numbers) {
    int kind = -1;
    for (int k = 0; k < N_KINDS; ++k)
      if (kind_name == KIND_NAMES[k]) kind = k;
    if (kind < 0) throw std::invalid_argument("an unknown pending kind '" + kind_name + "'");
    int which = -1;
    for (const auto& [name, value] : fields)
      if (field == name) which = value;
    if (which < 0) throw std::invalid_argument("a pending number in no field of the native state: '" + field + "'");
    o->number[kind] = which;
  }
  for (const auto& [players, segments] : layouts) {
    std::vector<ObservationSegment>& out = o->layouts[players];
    int at = 0;
    for (const auto& [name, offset, size] : segments) {
      if (offset != at || size < 0) throw std::invalid_argument("the layout's segment '" + name + "' is not contiguous");
      out.push_back({name, offset, size});
      at += size;
    }
    if (out.empty()) throw std::invalid_argument("an empty layout");
  }
  t.observation = std::move(o);
}

}  // namespace

void bind(py::module_& m) {
  m.def("set_observation_tables", &set_observation_tables, py::arg("tables"), py::arg("tiles"),
        py::arg("locations"), py::arg("solo_locations"), py::arg("cities"), py::arg("kinds"), py::arg("numbers"),
        py::arg("layouts"),
        "Add the observation tensor's static data of an edition to its native tables (observation.cpp).");
}

}  // namespace village::observation
