// The native core's game state and edition tables (issue 39; docs/native.md).
//
// A state mirrors village_rules.model.state.GameState field by field, so that `to_json`
// can write the reference's canonical JSON byte for byte. Nothing here holds a component
// value of its own: every number that depends on the edition (well cubes, family numbers,
// the setup cards, the action ids) is handed over once from the Python loader as Tables.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace village {

// The enums in the reference's declaration order (data/components.py).
enum Cube { BROWN, PINK, ORANGE, GREEN, PLAGUE, N_CUBES };
enum Good { SCROLL, HORSE, PLOW, OX, WAGON, N_GOODS };
enum Space { GRAIN_HARVEST, FAMILY, CRAFTS, MARKET, TRAVEL, COUNCIL_CHAMBER, CHURCH, N_SPACES };

inline const std::array<const char*, N_CUBES> CUBE_NAMES = {"brown", "pink", "orange", "green", "plague"};
inline const std::array<const char*, N_GOODS> GOOD_NAMES = {"scroll", "horse", "plow", "ox", "wagon"};
inline const std::array<const char*, N_SPACES> SPACE_NAMES = {
    "grain_harvest", "family", "crafts", "market", "travel", "council_chamber", "church"};
// A Tally's pairs are sorted by the key's text (data/tally.py): these orders.
inline const std::array<int, N_CUBES> CUBES_SORTED = {BROWN, GREEN, ORANGE, PINK, PLAGUE};
inline const std::array<int, N_GOODS> GOODS_SORTED = {HORSE, OX, PLOW, SCROLL, WAGON};
inline const std::array<int, 4> INFLUENCE = {BROWN, PINK, ORANGE, GREEN};

// Pending steps (model/pending.py), by class name.
enum Kind {
  CHOOSE_COMPENSATION_CUBE, CHOOSE_TURN, CHOOSE_ACTION, CHOOSE_PRIVILEGE, CHOOSE_SUPPLY_CUBE,
  CHOOSE_SUPPLY_GOOD, CHOOSE_PAYMENT, CHOOSE_DYING, MARKET_CHOICE, MASS_BUY, MASS_ADVANCE,
  SEED_DRAW, REFILL_DRAW, MASS_DRAW, CHOOSE_CARLA_CUBE, FATE_REVEAL, GAME_OVER, N_KINDS
};
inline const std::array<const char*, N_KINDS> KIND_NAMES = {
    "ChooseCompensationCube", "ChooseTurn", "ChooseAction", "ChoosePrivilege", "ChooseSupplyCube",
    "ChooseSupplyGood", "ChoosePayment", "ChooseDying", "MarketChoice", "MassBuy", "MassAdvance",
    "SeedDraw", "RefillDraw", "MassDraw", "ChooseCarlaCube", "FateReveal", "GameOver"};

// A step or configuration the native core does not implement: refused, never guessed.
struct NotSupportedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An id that is not legal (or not an outcome) at this state.
struct IllegalIdError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr int NONE = -1000000;  // an absent optional int (None in the reference)

struct Pending {
  int kind = GAME_OVER;
  int seat = NONE;
  int space = NONE;      // ChooseAction / ChooseCarlaCube / SeedDraw
  int remaining = NONE;  // ChooseSupplyCube / ChooseSupplyGood / SeedDraw / MassDraw
  int position = NONE;   // RefillDraw
  int max_stage = NONE;  // ChoosePrivilege
  int slot = NONE;       // FateReveal
  std::string action;    // ChoosePayment: the action's text
};

struct Player {
  std::string colour;
  std::vector<int> members;  // location ids (Tables::locations)
  int grain = 0, coins = 0, lifetime = 0, prestige = 0;
  std::array<int, N_CUBES> cubes{};
  std::array<int, N_GOODS> goods{};
  std::vector<int> customers;
  std::vector<std::string> markers;
};

struct MarketDay {
  int trigger = 0, current = 0, held_deaths = 0;
  std::vector<int> passed;
  bool trigger_sold = false, closed = false, first_pass_waived = false;
};

struct Mass {
  int bought = 0;
  bool final = false;
  bool in_final_actions = false;  // AMB-45 b: the round mass held in the final actions
  std::vector<int> stopped;
};

// Carla's board in a solo game (model/carla_board.py; the solo steps are in solo.cpp).
enum FateTile { FATE_QUILL, FATE_BLANK, N_FATE_TILES };
inline const std::array<const char*, N_FATE_TILES> FATE_NAMES = {"quill", "blank"};
struct CarlaBoard {
  int space = -1, last_cube = NONE;  // the cube space of her last cube (-1 before the first), its colour
  std::vector<int> fate;             // per fate slot: FATE_* turned up, NONE while face down
  int look_for = NONE, look_from = NONE, took_from = NONE;  // a Cube, a Space, a Space
  bool reacted = false, quill = false, well_turn = false;
  int end_in_market_of = NONE, action_waits = NONE;  // a seat, a Space (AMB-36 b)
};

struct State {
  std::optional<CarlaBoard> carla;  // a solo game's (seat 1 is Carla's)
  std::string rules_json;  // the "rules" object as the reference writes it (never changed here)
  bool turn_took_last_cube = false;  // Turn.took_last_cube (AMB-45): a final action emptied the board
  int round = 0, start_player = 0, next_start_holder = NONE;
  std::array<int, N_CUBES> supply_cubes{};
  int supply_coins = 0, supply_grain = 0;
  std::array<int, N_GOODS> supply_goods{};
  std::array<int, N_CUBES> green_bag{};
  std::array<std::array<int, N_CUBES>, N_SPACES> spaces{};
  std::vector<int> market_available, market_waiting;  // NONE for an empty space
  std::vector<int> customer_pile;
  int bag_monks = 0, monks_aside = 0;
  std::vector<Player> players;
  Pending pending;
  int turn = NONE;  // Turn(seat) or None
  std::optional<MarketDay> market_day;
  std::optional<Mass> mass;
  std::vector<int> deaths_owed;
  int end_triggered_by = NONE;
  std::optional<std::vector<int>> final_turns;
  // readings the supported steps consult (resolved by the Python side: choice or default)
  char amb01 = 'a', amb02 = 'a', amb03 = 'a', amb06 = 'a', amb08 = 'a', amb09 = 'a', amb10 = 'a', amb12 = 'a',
       amb15 = 'a', amb16 = 'a', amb17 = 'a', amb18 = 'a', amb19 = 'a', amb23 = 'a', amb24 = 'a', amb26 = 'a',
       amb33 = 'a', amb34 = 'a', amb44 = 'a', amb45 = 'a', amb46 = 'a';
  // the solo readings (only a solo game consults them)
  char amb36 = 'a', amb37 = 'a', amb38 = 'a', amb39 = 'a', amb41 = 'a', amb42 = 'a', amb43 = 'a';
};

// What a decoded action id means, for the actions the native core performs.
enum Verb { V_OTHER, V_TAKE, V_WELL, V_FREE, V_SKIP, V_PICK_CUBE, V_PICK_GOOD, V_DRAW_CUBE,
            V_DRAW_CUSTOMER, V_DRAW_MONK, V_DRAW_MEMBER, V_HARVEST, V_BIRTH, V_CALL_HOME, V_DIE,
            V_BUY_FROM_BAG, V_CHURCH_STEP, V_PAY, V_TRAIN, V_PRODUCE, V_BUY, V_MILL, V_CHURCH_ENTER,
            V_COUNCIL_PLACE, V_COUNCIL_ADVANCE, V_PRIVILEGE, V_TRAVEL, V_SERVE, V_PASS,
            V_CARLA_CUBE, V_REVEAL_FATE };

// What kind of place a location text names (data/components.py's Location classes).
enum Place { P_UNBORN, P_FARMYARD, P_CRAFT, P_COUNCIL, P_CHURCH, P_TRAVEL, P_RESERVE, P_BAG,
             P_CHRONICLE, P_GRAVEYARD, P_REMOVED, P_UNKNOWN };
struct Decoded {
  int verb = V_OTHER;
  int a = 0, b = 0;
  int c = -1;                         // V_TRAIN: the good, or -1 for training alone (AMB-26 b)
  std::array<int, N_CUBES> coins{};   // V_PAY: the coins standing in per colour
};

// Chronicle categories in the reference's order (data/components.py Category).
enum Category { CAT_FARMYARD, CAT_CRAFTS, CAT_TRAVEL, CAT_COUNCIL, CAT_CHURCH, N_CATEGORIES };
inline const std::array<const char*, N_CATEGORIES> CATEGORY_NAMES = {
    "farmyard", "crafts", "travel", "council_chamber", "church"};

// data/components.py TieBreaker, in its declaration order.
enum TieBreak { TIE_MOST_GRAIN, TIE_MOST_CUSTOMERS, TIE_MOST_LIVING_MEMBERS };

// data/edition.py RewardKind: what a city's travel reward gives.
enum Reward { REWARD_NONE, REWARD_PRESTIGE, REWARD_CUBES_OF_CHOICE, REWARD_COINS };

// data/edition.py Cost: what an action or a step costs.
struct Cost {
  int time = 0, grain = 0, coins = 0;
  std::array<int, N_CUBES> cubes{};
  std::array<int, N_GOODS> goods{};
};

// data/edition.py CraftBuilding, with the ids of its actions.
struct Craft {
  std::string building;
  int location = -1;  // "craft:<building>"
  int training_time = 0, production_time = 0;
  Cost purchase;
  std::vector<int> goods;                       // Good values, in the data's order
  std::map<int, std::vector<int>> train;        // number -> the train ids, one per good
  std::map<int, int> train_alone;               // number -> the id of training alone (AMB-26 b)
  std::vector<int> produce, buy;                // one id per good
};

// data/solo_data.py SoloData, as the solo steps read it (present only for an edition with a
// solo mode), with the ids of the solo mode's actions (CarlaCube, RevealFate).
struct SoloTables {
  bool present = false;
  std::vector<int> space_order;                  // Space values, clockwise on Carla's board
  int track_spaces = 0;
  std::vector<std::pair<int, int>> fate_slots;   // (tile set index, cube space)
  std::vector<std::vector<int>> fate_sets;       // tile set index -> its tiles (FATE_*), in the data's order
  std::array<int, N_SPACES> death_place{};       // Space -> Category, or -1: the graveyard
  std::array<int, N_CUBES> carla_cube{};         // Cube -> the id of "carla-cube <colour>"
  std::array<int, N_FATE_TILES> reveal{};        // FATE_* -> the id of "reveal-fate <tile>"
  std::vector<std::string> fate_set_names;       // tile set index -> its name (the carla check names it)
  int church_reserve = -1;                       // the location id of "church-reserve"
};

struct ObservationTables;  // the observation tensor's static data (observation.hpp)

// Per edition data: the action ids (from the reference's own action universe) and the few
// numbers the supported steps need. Built once per data from village_rules.data.
struct Tables {
  int n_actions = 0;
  int well_cubes = 0;
  int max_players = 0;
  std::vector<int> family_numbers;
  std::map<int, std::array<int, N_SPACES>> cubes_per_space;  // by player count
  std::map<int, std::array<int, N_CUBES>> cubes_added;       // by player count
  std::array<std::array<int, N_CUBES>, N_SPACES> take{};
  std::array<std::array<int, N_CUBES>, N_SPACES> well{};
  std::array<int, N_SPACES> free_{};
  std::array<int, N_CUBES> pick_cube{}, draw_cube{};
  std::array<int, N_GOODS> pick_good{};
  int skip = -1, draw_monk = -1, harvest = -1, birth = -1;
  int grain_capacity = 0, harvest_base = 0, harvest_horse_plow = 0, harvest_ox_plow = 0;
  std::unordered_map<int, int> call_home;  // location id * 1000 + number -> id
  std::unordered_map<int, int> die;        // location id -> id
  std::unordered_map<int, int> buy_from_bag;  // number -> id
  std::unordered_map<int, int> church_step;   // stage * 1000 + number -> id
  int mass_coin_price = 0, church_stages = 0, lifetime_track_length = 0, plague_time = 0;
  std::vector<int> church_step_grain;
  std::vector<int> church_location;  // stage -> "church:<stage>" ([0] unused)
  int mass_pieces = 0, majority_prestige = 0;
  std::unordered_map<int, int> draw_customer;  // tile -> id
  std::unordered_map<int, int> draw_member;    // seat * 100000 + number -> id
  std::vector<Decoded> decoded;                // id -> meaning
  std::vector<std::string> texts;              // id -> the action's text (format_action)
  std::unordered_map<std::string, int> ids;    // text -> id
  std::vector<Craft> crafts;                   // data.crafts, in order
  Cost mill_cost;
  int mill_coins = 0, mill = -1;
  std::vector<Cost> church_enter;              // the cost alternatives of entering the church
  std::unordered_map<int, int> church_enter_ids;  // number -> id
  std::map<std::pair<int, std::array<int, N_CUBES>>, int> pay;  // (alternative, coins) -> id
  // the council chamber (data.council_*, data.privilege_*; engine/council_chamber.py)
  int council_stages = 0;
  std::vector<Cost> council_place;             // the cost alternatives of placing on stage 1 (CNC-01)
  std::vector<std::vector<Cost>> council_advance;  // by stage left (1-based; [0] unused): each
                                                   // alternative plus that stage's time (CNC-02)
  std::vector<int> council_location;           // stage -> "council:<stage>" ([0] unused)
  std::unordered_map<int, int> council_place_ids;    // number -> id
  std::unordered_map<int, int> council_advance_ids;  // stage * 1000 + number -> id
  std::unordered_map<int, int> privilege_ids;        // stage -> id
  int privilege_coin_price = 0, privilege_prestige = 0, privilege_cubes = 0, privilege_goods = 0;
  // the travel map (data.village, data.cities, data.paths; engine/travel_map.py): node 0 is
  // the village, the cities follow in the data's order
  std::vector<std::string> nodes;
  std::unordered_map<std::string, int> node_ids;
  std::vector<std::vector<std::pair<int, Cost>>> paths;  // node -> (city, path cost), sorted by the city's id
  std::vector<int> reward_kind, reward_amount;           // node -> REWARD_*, amount (the village: none)
  std::vector<int> travel_location;                      // node -> "travel:<city>" (the village: -1)
  std::unordered_map<long long, int> travel_ids;         // (origin * 1000 + destination) * 1000 + number -> id
  int travel_markers = 0;
  // the market (data.customers, data.later_sale; engine/market_day.py)
  std::unordered_map<int, Cost> demand;   // tile -> its goods and grain
  Cost later_sale;                        // what every sale but the market-day player's first adds
  std::unordered_map<int, int> serve_ids;  // tile -> id
  int pass = -1;
  std::map<int, std::array<int, N_CATEGORIES>> chronicle_open;  // by player count
  std::map<int, int> graveyard_open;                            // by player count
  std::array<int, N_CATEGORIES> chronicle_location{};           // "chronicle:<category>"
  int graveyard = -1, removed = -1;
  // the final scoring (data.score_*, data.tie_breakers, the customers' points; engine/scoring.py)
  std::vector<int> score_travel, score_church, score_council, score_chronicle;
  int score_coin = 0;
  std::vector<int> tie_breakers;            // TIE_* in the data's order
  std::unordered_map<int, int> customer_points;  // tile -> its printed points
  // locations, interned: text -> id, and whether it is the black bag
  std::unordered_map<std::string, int> location_ids;
  std::vector<std::string> locations;
  std::vector<int> places;  // location id -> Place
  std::vector<int> stages;  // location id -> the stage of "church:N" / "council:N", else 0
  int black_bag = -1, unborn = -1, farmyard = -1;
  SoloTables solo;  // the solo mode's data (solo.cpp set_solo_tables)
  // the observation tensor's static data (observation.cpp set_observation_tables); null until set
  std::shared_ptr<const ObservationTables> observation;
  // what only the state invariants read (checks.cpp; checks/invariants.py _totals and
  // _market_rows): the pieces in the game, and the market rows by player count
  int supply_coins = 0, supply_grain = 0, goods_each = 0, influence_cubes_each = 0, plague_cubes = 0, monks = 0;
  int min_players = 0;
  std::map<int, std::pair<int, int>> market_rows;  // by player count: (available spaces, waiting spaces)
  // what only the catalogue's query 13 reads (predicates.cpp; proofs/catalogue HIGH_SCORE): the
  // lower side of a high score by player count, handed over by Python (set_high_scores)
  std::map<int, int> high_score;
  int location(const std::string& text) {
    auto it = location_ids.find(text);
    if (it != location_ids.end()) return it->second;
    int id = static_cast<int>(locations.size());
    locations.push_back(text);
    location_ids.emplace(text, id);
    places.push_back(place_of(text));
    int stage = 0;
    if (places.back() == P_CHURCH || places.back() == P_COUNCIL) stage = std::stoi(text.substr(text.find(':') + 1));
    stages.push_back(stage);
    if (text == "black-bag") black_bag = id;
    if (text == "unborn") unborn = id;
    if (text == "farmyard") farmyard = id;
    return id;
  }
  static int place_of(const std::string& text) {
    static const std::pair<const char*, int> plain[] = {
        {"unborn", P_UNBORN}, {"farmyard", P_FARMYARD}, {"church-reserve", P_RESERVE},
        {"black-bag", P_BAG}, {"graveyard", P_GRAVEYARD}, {"removed", P_REMOVED}};
    for (auto& [name, place] : plain)
      if (text == name) return place;
    static const std::pair<const char*, int> prefixed[] = {
        {"craft:", P_CRAFT}, {"council:", P_COUNCIL}, {"church:", P_CHURCH}, {"travel:", P_TRAVEL},
        {"chronicle:", P_CHRONICLE}};
    for (auto& [prefix, place] : prefixed)
      if (text.rfind(prefix, 0) == 0) return place;
    return P_UNKNOWN;
  }
};

}  // namespace village
