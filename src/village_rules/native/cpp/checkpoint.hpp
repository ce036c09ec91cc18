// The native explorer's checkpoint file (issue 40): written atomically, read back only whole.
//
// A file is its header, given by the caller (explore/native_checkpoint.py: the format's
// magic line and the run's identity, one JSON line), then a fixed line with the body's length
// and checksum, then the body (explore.cpp writes the loop's state into it):
//
//     village-rules native explore checkpoint\n
//     format 1\n
//     {"configuration": ..., "players": ..., "native core (...)": ..., ...}\n
//     body 00000000000000123456 checksum 0123456789abcdef\n
//     <body>
//
// The checksum is 64 bits (splitmix64's mixer folded over the body's 8-byte words, its
// length last): it catches damage (a truncated or altered file), not forgery, as the Python
// explorer's SHA-256 does. Reading checks the header byte for byte, the length against the
// file's size and the checksum over the whole body before anything of it is used, so a
// damaged file is refused before the work, never half loaded. Little-endian hosts only (the
// seen set is too).
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace village::checkpoint {

// The SHA-256 of the C++ sources compiled into this extension (setup.py passes it in as
// VILLAGE_NATIVE_SOURCES; "" when built without it). A checkpoint names the build it was
// written by: the fingerprints, the packed states and the move indices it holds are
// this code's, so another build's are refused.
const char* build_id();

// A checkpoint that cannot be resumed: the message says what is wrong with it (the caller
// names the file).
struct DamagedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A checkpoint that could not be written: the message says why (the caller names the file).
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The body's checksum, fed in pieces of any size.
class Checksum {
 public:
  void update(const uint8_t* p, size_t n);
  uint64_t value() const;

 private:
  uint64_t h_ = 0x243f6a8885a308d3ULL;  // a fixed start (pi's fraction)
  uint64_t length_ = 0;
  uint8_t tail_[8] = {};
  size_t used_ = 0;
};

// Writes `path` atomically: the header and the body go to a temporary file beside it, which
// replaces `path` only once whole and on disk (`commit`); until then the old file, if any,
// stays as it was.
class Writer {
 public:
  Writer(const std::string& path, const std::string& header);
  ~Writer();  // removes the temporary file unless committed
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  void bytes(const uint8_t* p, size_t n);
  void varint(uint64_t v);
  void zigzag(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void text(const std::string& s);
  long long commit();  // the file's size

 private:
  void flush();
  void fail(const std::string& what);
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  std::vector<uint8_t> buffer_;
  Checksum sum_;
  uint64_t length_ = 0;
  long header_end_ = 0;
  bool committed_ = false;
};

// Reads a checkpoint written with `header`: the constructor checks the header, the length
// and the checksum (DamagedError naming what is wrong); then the body is read in order.
class Reader {
 public:
  Reader(const std::string& path, const std::string& header);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  void bytes(uint8_t* p, size_t n);
  uint64_t varint();
  int64_t zigzag() {
    uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  std::string text();
  // a count of items each at least `least` bytes long: refused if the body cannot hold them
  uint64_t count(uint64_t least, const char* what);
  uint64_t left() const { return length_ - read_; }
  void finish();  // the whole body was read
  [[noreturn]] void damaged(const std::string& what) const;

 private:
  void fill();
  std::FILE* file_ = nullptr;
  std::vector<uint8_t> buffer_;
  size_t at_ = 0, have_ = 0;
  uint64_t length_ = 0, read_ = 0;
};

}  // namespace village::checkpoint
