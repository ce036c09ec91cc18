// A state packed into bytes, for the explorer's frontier (issue 40: 10^8 states within
// memory). A State keeps a dozen heap vectors and strings, about a kilobyte and a dozen
// allocations a state; packed, it is a hundred-odd bytes in one arena, and the explorer
// unpacks a parent into a State it reuses, so a step allocates (almost) nothing.
//
// Every field is written but the ones a run holds constant: the readings and the rules text
// stay as the State unpacked into has them (the explorer's roots set them). The round comes
// first, and a field the canonical JSON leaves out in some states (a turn's
// took_last_cube without a turn, a pending step's action outside a payment) is written as its
// default there: so the bytes after the round are the state's identity, the explorer's
// fingerprint (explore.cpp), equal exactly when the JSON but for the round is. Integers are
// zigzag LEB128 varints (most fields are small), strings and lists are preceded by their
// length, optionals by whether they are there: the same reading of the fields in the same
// order as `pack`, so unpack(pack(s)) == s, checked on every state of the shipped
// configurations (explore's check_json; tests/native/test_native_explore.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "state.hpp"

namespace village::pack {

void pack(const State& s, std::vector<uint8_t>& out);  // appends s's bytes to out
// Reads one state from `at` into `into` (its readings and rules text untouched); returns the
// byte after it.
const uint8_t* unpack(const uint8_t* at, State& into);

// Where the bytes after the round start, in a state packed at `at`.
const uint8_t* after_round(const uint8_t* at);

}  // namespace village::pack
