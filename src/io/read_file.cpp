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

std::string too_big_message(const std::string& path, unsigned long long max_bytes = kMaxInputBytes) {
    return path + ": the file is larger than " + std::to_string(max_bytes >> 20) +
           " MiB, the most gpuadvise reads" + (max_bytes < kMaxInputBytes ? " for this kind of file" : "");
}
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

namespace {

const char* const kReadHint = "give the path of a catalog file (YAML, or a SkyPilot vms.csv)";

// Opens `path` for reading if it is a regular file of at most `max_bytes` (fills `st`); throws DataError.
int open_regular_file(const std::string& path, struct stat& st, unsigned long long max_bytes = kMaxInputBytes,
                      const char* fix = nullptr) {
    const std::string hint = kReadHint;
    if (path.empty()) throw DataError("an empty file name; expected the path of a catalog file", hint);
    // stat first: opening a FIFO would block and opening a socket fails with a misleading reason.
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
        bool keep = false;
        ~Closer() {
            if (!keep) ::close(fd);
        }
    } closer{fd};
    if (::fstat(fd, &st) != 0)
        throw DataError(path + ": cannot read the file: " + std::strerror(errno), hint);
    if (!S_ISREG(st.st_mode))
        throw DataError(path + ": is " + describe_file_type(st.st_mode) +
                            ", not a regular file; only regular files are read",
                        hint);
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > max_bytes)
        throw DataError(too_big_message(path, max_bytes),
                        fix ? fix : "split the table into several files, or drop rows you do not need");
    closer.keep = true;
    return fd;
}

[[noreturn]] void throw_read_error(const std::string& path, std::size_t used) {
    throw DataError(path + ": read error after " + std::to_string(used) + " bytes: " + std::strerror(errno) +
                        "; nothing of the file was used",
                    "check the disk or copy the file elsewhere and try again");
}

}  // namespace

std::string read_file(const std::string& path, unsigned long long max_bytes, const char* fix) {
    max_bytes = std::min(max_bytes, kMaxInputBytes);
    struct stat st {};
    const int fd = open_regular_file(path, st, max_bytes, fix);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    const std::string too_big = too_big_message(path, max_bytes);
    const char* const split = fix ? fix : "split the table into several files";

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
            if (bytes.size() > max_bytes) throw DataError(too_big, split);
            bytes.resize(std::min<std::size_t>(bytes.size() * 2, max_bytes + 1));
        }
        const ssize_t n = ::read(fd, bytes.data() + used, std::min(bytes.size() - used, kChunk));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_read_error(path, used);
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
        if (used > max_bytes) throw DataError(too_big, split);
    }
    bytes.resize(used);
    return bytes;
}

LineChunks::LineChunks(const std::string& path, std::size_t chunk_bytes)
    : path_(path), chunk_(std::max<std::size_t>(chunk_bytes, 1)) {
    struct stat st {};
    fd_ = open_regular_file(path, st);
    size_ = static_cast<std::size_t>(st.st_size);
    buffer_.resize(chunk_ + 1);
}

LineChunks::~LineChunks() {
    if (fd_ >= 0) ::close(fd_);
}

// Fills buffer_[end_...] by one read(2); false at the end of the file.
bool LineChunks::fill() {
    if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a line longer than the buffer
    while (true) {
        const ssize_t n = ::read(fd_, buffer_.data() + end_, std::min(buffer_.size() - end_, kChunk));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_read_error(path_, read_);
        }
        if (n == 0) return false;
        end_ += static_cast<std::size_t>(n);
        read_ += static_cast<std::size_t>(n);
        if (read_ > kMaxInputBytes)
            throw DataError(too_big_message(path_), "split the table into several files");
        return true;
    }
}

std::string_view LineChunks::next() {
    if (peeked_) {
        peeked_ = false;
        return {buffer_.data() + begin_, piece_};
    }
    // Keep the unfinished line of the last piece; read until the buffer holds a chunk or the file ends.
    begin_ += piece_;
    piece_ = 0;
    if (begin_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    while (!eof_) {
        if (end_ >= chunk_) {
            const void* nl = ::memrchr(buffer_.data(), '\n', end_);
            if (nl) {
                piece_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.data()) + 1;
                return {buffer_.data(), piece_};
            }
        }
        if (!fill()) eof_ = true;
    }
    piece_ = end_;  // the rest of the file (no newline at its end, or empty at the end)
    return {buffer_.data(), piece_};
}

std::string_view LineChunks::peek() {
    if (!peeked_) {
        const std::string_view piece = next();
        peeked_ = true;
        return piece;
    }
    return {buffer_.data() + begin_, piece_};
}

std::string LineChunks::read_all() {
    std::string out;
    out.reserve(size_ + 1);
    for (std::string_view piece = next(); !piece.empty(); piece = next()) out.append(piece);
    return out;
}

}  // namespace gpuadvise::io
