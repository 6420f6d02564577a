#include "codegen/cache_entry.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "codegen/hash128.h"
#include "common/error.h"

namespace stitch {

namespace {

constexpr char kMagic[8] = {'S', 'T', 'C', 'H', 'S', 'O', '0', '1'};


std::string homeDirectory() {
  if (const char* home = std::getenv("HOME"); home && *home) return home;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir) return pw->pw_dir;
  return "";
}

// mkdir -p; true when `dir` exists as a directory afterwards.
bool makeDirectories(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

std::string trailerFor(const std::string& payload) {
  Hash128 h = hash128(payload);
  uint64_t size = payload.size();
  std::string trailer(kCacheTrailerBytes, '\0');
  std::memcpy(&trailer[0], kMagic, 8);
  std::memcpy(&trailer[8], &size, 8);
  std::memcpy(&trailer[16], &h.lo, 8);
  std::memcpy(&trailer[24], &h.hi, 8);
  return trailer;
}

}  // namespace

std::string kernelCacheDirectory() {
  std::string dir;
  if (const char* env = std::getenv("STITCH_CACHE_DIR"); env && *env) {
    dir = env;
  } else if (std::string home = homeDirectory(); !home.empty()) {
    dir = home + "/.cache/tensorstitch";
  } else {
    // No home at all (a bare service account): a per-user folder in /tmp.
    dir = "/tmp/tensorstitch-cache-" + std::to_string(::getuid());
  }
  // Absolute, so entry paths (the memory cache's keys, dlopen's names) do
  // not change meaning when the working directory does.
  std::error_code ec;
  if (std::filesystem::path absolute = std::filesystem::absolute(dir, ec); !ec) dir = absolute.string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!makeDirectories(dir))
    throw UserError("cannot create the kernel cache directory '" + dir + "': " + std::strerror(errno));
  return dir;
}

EntryState checkCacheEntry(const std::string& path) {
  std::string bytes;
  if (!readFile(path, &bytes)) return EntryState::Missing;
  if (bytes.size() < kCacheTrailerBytes) return EntryState::Bad;
  std::string payload = bytes.substr(0, bytes.size() - kCacheTrailerBytes);
  bool intact = bytes.compare(payload.size(), kCacheTrailerBytes, trailerFor(payload)) == 0;
  return intact ? EntryState::Valid : EntryState::Bad;
}

bool sealCacheEntry(const std::string& path) {
  std::string payload;
  if (!readFile(path, &payload)) return false;
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << trailerFor(payload);
  out.close();
  return out.good();
}

bool writeFileAtomically(const std::string& path, const std::string& content) {
  std::string temp = uniqueTempPath(path);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out.good()) {
      ::unlink(temp.c_str());
      return false;
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

std::string uniqueTempPath(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

std::string firstLines(const std::string& text, int count) {
  std::istringstream in(text);
  std::string line, out;
  for (int i = 0; i < count && std::getline(in, line); ++i) out += "\n  " + line;
  return out;
}

}  // namespace stitch
