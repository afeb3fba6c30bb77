// Writing files atomically (a temporary beside each, renamed into place), several at once all
// or none, and checking beforehand that a file can be written where it is to go.
#include "common/run_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/fd_write.h"

namespace perflab {

namespace fs = std::filesystem;

namespace {

fs::path folder_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// A new, empty file beside path (".<name>.XXXXXX"); returns its name and open descriptor.
std::pair<std::string, int> temporary_beside(const fs::path& path) {
  std::string base = ".";  // appended, not concatenated: GCC 12 warns (-Wrestrict) on "." + s
  base += path.filename().string();
  base += ".XXXXXX";
  std::string name = (folder_of(path) / base).string();
  const int fd = mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
  return {name, fd};
}

// The text in a temporary beside path, on disk; returns the temporary's name.
std::string write_temporary(const fs::path& path, const std::string& text) {
  auto [name, fd] = temporary_beside(path);
  const auto fail = [&, name = name, fd = fd](const char* what) {
    const std::string err = std::strerror(errno);
    ::close(fd);
    ::unlink(name.c_str());
    throw std::runtime_error(path.string() + ": " + what + " (" + err + ")");
  };
  if (!write_all(fd, text)) fail("write failed");
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0) fail("write failed");
  if (::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(name.c_str());
    throw std::runtime_error(path.string() + ": write failed (" + err + ")");
  }
  return name;
}

// A folder, a device, a FIFO or a socket at `path` is never replaced: renaming a file over
// /dev/null (as root) would turn the device into a regular file.
void refuse_special_file(const fs::path& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_directory(st))
    throw std::runtime_error(path.string() + ": is a folder; name a file to write");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw std::runtime_error(path.string() + ": is not a regular file; name a file to write");
}

}  // namespace

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  for (const auto& f : files) refuse_special_file(f.first);  // before anything is written
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (fs::weakly_canonical(files[i].first) == fs::weakly_canonical(files[k].first))
        throw std::runtime_error(files[i].first.string() + ": named twice");
  std::vector<std::string> temps, backups;
  const auto discard = [](const std::vector<std::string>& names, std::size_t from = 0) {
    for (std::size_t i = from; i < names.size(); ++i)
      if (!names[i].empty()) ::unlink(names[i].c_str());
  };
  try {
    for (const auto& [path, text] : files) temps.push_back(write_temporary(path, text));
  } catch (...) {
    discard(temps);
    throw;
  }
  // With several files, what each replaces is kept (a hard link) until all are in place.
  backups.resize(files.size());
  if (files.size() > 1)
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      if (!fs::is_regular_file(files[i].first, ec)) continue;
      auto [name, fd] = temporary_beside(files[i].first);
      ::close(fd);
      ::unlink(name.c_str());
      if (::link(files[i].first.c_str(), name.c_str()) == 0) backups[i] = name;
    }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(temps[i].c_str(), files[i].first.c_str()) == 0) continue;
    const std::string err = std::strerror(errno);
    for (std::size_t k = 0; k < i; ++k) {  // undo: none of the files is written
      if (!backups[k].empty() && ::rename(backups[k].c_str(), files[k].first.c_str()) == 0)
        backups[k].clear();
      else if (backups[k].empty())
        ::unlink(files[k].first.c_str());
    }
    discard(temps, i);
    discard(backups);
    throw std::runtime_error(files[i].first.string() + ": cannot replace (" + err + ")");
  }
  discard(backups);
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  write_files_atomically({{path, text}});
}

void check_output_path(const fs::path& path) {
  refuse_special_file(path);
  std::error_code ec;
  const fs::path dir = folder_of(path);
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(path.string() + ": folder " + dir.string() + " does not exist");
  auto [name, fd] = temporary_beside(path);  // can a file be created there? (root, read-only)
  ::close(fd);
  ::unlink(name.c_str());
}

}  // namespace perflab
