#pragma once
// A folder Perflab owns under the temporary directory (a managed server's data, a helper's
// output): its owner's pid recorded in it, removed with everything in it when done, and removed
// later when the Perflab that made it died.
#include <filesystem>
#include <string>

#include "targets/child_process.h"

namespace perflab {

// A fresh folder Perflab owns: <tmp>/<prefix>XXXXXX, mode 0700 (no other user reaches a
// server's Unix socket, logs or secrets in it), owned by the server's user (creds). Folders of
// a Perflab that died are removed first (once per process). Throws ServerError.
std::filesystem::path make_owned_folder(const std::string& prefix, const Credentials& creds);
// Removes the folder with everything in it (nothing when dir is empty).
void remove_folder(const std::filesystem::path& dir);
// The same without waiting for it: the folder is renamed away at once (its path is free when this
// returns) and removed by an `rm -rf` of its own, which outlives Perflab if need be. For a
// server's data directory: freeing hundreds of MB of WAL and tables after a run kept quitting
// waiting 1.6–2.5 s. Falls back to remove_folder when it cannot rename or start rm.
void remove_folder_detached(const std::filesystem::path& dir);

// A folder Perflab owns under the temporary directory (its owner's pid recorded, so folders of
// a Perflab that died are removed later), removed with everything in it on destruction.
class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix);  // e.g. "perflab-pgbench-"; throws ServerError
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace perflab
