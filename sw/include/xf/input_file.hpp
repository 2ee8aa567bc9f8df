// Input files named by the user (fabric run --input, a file: topology, fabric train --data): why
// one cannot be read, before it is opened. A directory or a FIFO would otherwise end in a read
// error deep in the standard library (or block for ever); the callers turn the reason into a usage
// error that names the option and the file.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace xf {

// "" when `path` is a regular file this process may read (its size in *bytes, if given); else
// what is wrong with it, e.g. "is a directory".
inline std::string input_file_problem(const std::string& path, uint64_t* bytes = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  if (!S_ISREG(st.st_mode))
    return S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file"
                                : "is a device or socket, not a regular file";
  if (::access(path.c_str(), R_OK) != 0)
    return std::string("cannot be read: ") + std::strerror(errno);
  if (bytes) *bytes = static_cast<uint64_t>(st.st_size);
  return "";
}

}  // namespace xf
