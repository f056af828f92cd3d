// The one place where gpuadvise reads a file (every --catalog file, GPUADVISE_CATALOG entry,
// catalog `tables:` path and `catalog import` input goes through read_file): only regular files,
// at most kMaxInputBytes, and any read error fails the whole file (nothing of it is used).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/huge_pages.hpp"

namespace gpuadvise::io {
namespace {
constexpr std::size_t kChunk = std::size_t{1} << 20;  // bytes per read(2)
}  // namespace

std::string describe_file_type(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG: return "a regular file";
        case S_IFDIR: return "a directory";
        case S_IFIFO: return "a FIFO (named pipe)";
        case S_IFSOCK: return "a socket";
        case S_IFCHR: return "a character device";
        case S_IFBLK: return "a block device";
        case S_IFLNK: return "a symbolic link";
        default: return "not a regular file";
    }
}

std::string read_file(const std::string& path) {
    const std::string hint = "give the path of a catalog file (YAML, or a SkyPilot vms.csv)";
    if (path.empty()) throw DataError("an empty file name; expected the path of a catalog file", hint);
    // stat first: opening a FIFO would block and opening a socket fails with a misleading reason.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw DataError(path + ": cannot open the file: " + std::strerror(errno), hint);
    if (!S_ISREG(st.st_mode))
        throw DataError(path + ": is " + describe_file_type(st.st_mode) +
                            ", not a regular file; only regular files are read",
                        hint);
    // O_NONBLOCK: should the path have become a FIFO since the stat, the open does not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) throw DataError(path + ": cannot open the file: " + std::strerror(errno), hint);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0)
        throw DataError(path + ": cannot read the file: " + std::strerror(errno), hint);
    if (!S_ISREG(st.st_mode))
        throw DataError(path + ": is " + describe_file_type(st.st_mode) +
                            ", not a regular file; only regular files are read",
                        hint);
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    const std::string too_big = path + ": the file is larger than " + std::to_string(kMaxInputBytes >> 20) +
                                " MiB, the most gpuadvise reads";
    if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > kMaxInputBytes)
        throw DataError(too_big, "split the table into several files, or drop rows you do not need");

    // One buffer of the size seen (a 1M-offer table is 200 MB; growing a buffer copied it several
    // times). Files that report no size (/proc) or grow while read continue in chunks, up to the cap.
    std::string bytes;
    std::size_t size = static_cast<std::size_t>(st.st_size);
    std::size_t capacity = size > 0 ? size : std::size_t{64} << 10;
    bytes.reserve(capacity + 1);  // +1: the read that sees end of file needs room for one byte
    advise_huge_pages(bytes.data(), bytes.capacity());
    std::size_t used = 0;
    bytes.resize(capacity + 1);
    while (true) {
        if (used == bytes.size()) {
            if (bytes.size() > kMaxInputBytes) throw DataError(too_big, "split the table into several files");
            bytes.resize(std::min<std::size_t>(bytes.size() * 2, kMaxInputBytes + 1));
        }
        const ssize_t n = ::read(fd, bytes.data() + used, std::min(bytes.size() - used, kChunk));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw DataError(path + ": read error after " + std::to_string(used) +
                                " bytes: " + std::strerror(errno) + "; nothing of the file was used",
                            "check the disk or copy the file elsewhere and try again");
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
        if (used > kMaxInputBytes) throw DataError(too_big, "split the table into several files");
    }
    bytes.resize(used);
    return bytes;
}

}  // namespace gpuadvise::io
