// The native explorer's checkpoint file (checkpoint.hpp): atomic writing, whole reading.

#include "checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#ifndef VILLAGE_NATIVE_SOURCES
#define VILLAGE_NATIVE_SOURCES ""
#endif

namespace village::checkpoint {

const char* build_id() { return VILLAGE_NATIVE_SOURCES; }

namespace {

constexpr size_t BUFFER = size_t(1) << 20;
// "body <20 digits> checksum <16 hex digits>\n": a fixed width, so that it is written last,
// in place, once the body's length and checksum are known
constexpr size_t LENGTH_LINE = 5 + 20 + 10 + 16 + 1;

inline uint64_t mix(uint64_t z) {  // splitmix64's finaliser, as explore.cpp's fingerprint
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string reason() { return std::strerror(errno); }

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

// ---- Checksum ------------------------------------------------------------------------------

void Checksum::update(const uint8_t* p, size_t n) {
  length_ += n;
  while (n > 0 && used_ > 0) {  // finish the word begun by the last piece
    tail_[used_++] = *p++;
    --n;
    if (used_ == 8) {
      uint64_t w;
      std::memcpy(&w, tail_, 8);
      h_ = mix(h_ ^ w);
      used_ = 0;
    }
  }
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h_ = mix(h_ ^ w);
  }
  for (; n > 0; --n) tail_[used_++] = *p++;
}

uint64_t Checksum::value() const {
  uint64_t h = h_;
  if (used_ > 0) {
    uint64_t w = 0;
    std::memcpy(&w, tail_, used_);
    h = mix(h ^ w);
  }
  return mix(h ^ length_);  // the length last: a body cut at a word's end differs too
}

// ---- Writer --------------------------------------------------------------------------------

Writer::Writer(const std::string& path, const std::string& header) : path_(path) {
  temp_ = path + "." + std::to_string(getpid()) + ".partial";
  file_ = std::fopen(temp_.c_str(), "wb");
  if (file_ == nullptr) {
    std::string why = reason();
    throw WriteError("cannot be written: " + why + "; the old file, if any, is unchanged");
  }
  buffer_.reserve(BUFFER);
  std::string line(LENGTH_LINE, ' ');  // overwritten by `commit`
  if (std::fwrite(header.data(), 1, header.size(), file_) != header.size() ||
      std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    fail("its header");
  header_end_ = static_cast<long>(header.size());
}

Writer::~Writer() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void Writer::fail(const std::string& what) {
  std::string why = reason();
  throw WriteError("cannot be written (" + what + "): " + why + "; the old file, if any, is unchanged");
}

void Writer::flush() {
  if (buffer_.empty()) return;
  sum_.update(buffer_.data(), buffer_.size());
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) fail("its body");
  length_ += buffer_.size();
  buffer_.clear();
}

void Writer::bytes(const uint8_t* p, size_t n) {
  while (n > 0) {
    size_t room = BUFFER - buffer_.size(), k = n < room ? n : room;
    buffer_.insert(buffer_.end(), p, p + k);
    p += k;
    n -= k;
    if (buffer_.size() == BUFFER) flush();
  }
}

void Writer::varint(uint64_t v) {
  uint8_t out[10];
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<uint8_t>(v);
  bytes(out, n);
}

void Writer::text(const std::string& s) {
  varint(s.size());
  bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

long long Writer::commit() {
  flush();
  char line[LENGTH_LINE + 1];
  std::snprintf(line, sizeof line, "body %020" PRIu64 " checksum %016" PRIx64 "\n", length_, sum_.value());
  if (std::fseek(file_, header_end_, SEEK_SET) != 0 || std::fwrite(line, 1, LENGTH_LINE, file_) != LENGTH_LINE)
    fail("its length line");
  if (std::fflush(file_) != 0 || fsync(fileno(file_)) != 0) fail("flushing it to disk");
  struct stat old;
  if (stat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) fchmod(fileno(file_), old.st_mode & 07777);
  int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) fail("closing it");
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail("putting it in place");
  committed_ = true;
  int folder = open(folder_of(path_).c_str(), O_RDONLY);  // the rename itself on disk
  if (folder >= 0) {
    fsync(folder);
    close(folder);
  }
  return static_cast<long long>(static_cast<uint64_t>(header_end_) + LENGTH_LINE + length_);
}

// ---- Reader --------------------------------------------------------------------------------

Reader::Reader(const std::string& path, const std::string& header) {
  file_ = std::fopen(path.c_str(), "rb");
  if (file_ == nullptr) damaged("cannot be read: " + reason());
  struct stat st;
  if (fstat(fileno(file_), &st) != 0 || !S_ISREG(st.st_mode)) damaged("not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string head(header.size(), '\0');
  if (std::fread(head.data(), 1, head.size(), file_) != head.size() || head != header)
    damaged("its header is not this run's (explore/native_checkpoint.py compares it first)");
  char line[LENGTH_LINE + 1] = {};
  uint64_t length = 0, expected = 0;
  if (std::fread(line, 1, LENGTH_LINE, file_) != LENGTH_LINE ||
      std::sscanf(line, "body %20" SCNu64 " checksum %16" SCNx64, &length, &expected) != 2 ||
      line[LENGTH_LINE - 1] != '\n')
    damaged("truncated or damaged: its length line is missing or unreadable");
  const uint64_t start = header.size() + LENGTH_LINE;
  if (size < start + length)
    damaged("truncated: its body has " + std::to_string(size - start) + " of its " + std::to_string(length) +
            " bytes");
  if (size > start + length)
    damaged("damaged: " + std::to_string(size - start - length) + " bytes follow its body");
  length_ = length;
  buffer_.resize(BUFFER);
  Checksum sum;  // the whole body first, before any of it is used
  for (uint64_t done = 0; done < length;) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(BUFFER, length - done));
    if (std::fread(buffer_.data(), 1, want, file_) != want) damaged("cannot be read: " + reason());
    sum.update(buffer_.data(), want);
    done += want;
  }
  if (sum.value() != expected)
    damaged("damaged: its body does not match its checksum (altered or partly overwritten)");
  if (std::fseek(file_, static_cast<long>(start), SEEK_SET) != 0) damaged("cannot be read: " + reason());
}

Reader::~Reader() {
  if (file_ != nullptr) std::fclose(file_);
}

void Reader::damaged(const std::string& what) const { throw DamagedError(what); }

void Reader::fill() {
  size_t want = static_cast<size_t>(std::min<uint64_t>(BUFFER, length_ - read_));  // the buffer is spent
  at_ = 0;
  have_ = std::fread(buffer_.data(), 1, want, file_);
  if (have_ == 0) damaged("malformed: its body ends before its contents do");
}

void Reader::bytes(uint8_t* p, size_t n) {
  if (n > left()) damaged("malformed: its body ends before its contents do");
  while (n > 0) {
    if (at_ == have_) fill();
    size_t k = std::min(n, have_ - at_);
    std::memcpy(p, buffer_.data() + at_, k);
    at_ += k;
    read_ += k;
    p += k;
    n -= k;
  }
}

uint64_t Reader::varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    uint8_t b;
    bytes(&b, 1);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return v;
  }
  damaged("malformed: a number longer than 64 bits");
}

std::string Reader::text() {
  uint64_t n = count(1, "characters");
  std::string s(static_cast<size_t>(n), '\0');
  bytes(reinterpret_cast<uint8_t*>(s.data()), s.size());
  return s;
}

uint64_t Reader::count(uint64_t least, const char* what) {
  uint64_t n = varint();
  if (least > 0 && n > left() / least)
    damaged(std::string("malformed: more ") + what + " (" + std::to_string(n) + ") than its body holds");
  return n;
}

void Reader::finish() {
  if (left() != 0) damaged("malformed: " + std::to_string(left()) + " bytes of its body were not read");
}

}  // namespace village::checkpoint
