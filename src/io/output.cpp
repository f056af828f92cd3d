#include "io/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace gpuadvise::io {

FdOutputBuffer::FdOutputBuffer(int fd) : fd_(fd), buffer_(std::size_t{64} << 10) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
}

FdOutputBuffer::~FdOutputBuffer() { (void)drain(); }

bool FdOutputBuffer::write_all(const char* data, std::size_t size) {
    while (size > 0 && error_ == 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            error_ = errno;
            break;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return error_ == 0;
}

// After an error everything is dropped: the stream is failed and what follows would be a torn output.
bool FdOutputBuffer::drain() {
    const std::size_t pending = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return pending == 0 || write_all(buffer_.data(), pending);
}

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
}

int FdOutputBuffer::sync() { return drain() ? 0 : -1; }

std::streamsize FdOutputBuffer::xsputn(const char* s, std::streamsize n) {
    if (error_) return 0;
    const auto size = static_cast<std::size_t>(n);
    if (size <= static_cast<std::size_t>(epptr() - pptr())) {
        traits_type::copy(pptr(), s, size);
        pbump(static_cast<int>(n));
        return n;
    }
    if (!drain() || !write_all(s, size)) return 0;
    return n;
}

int output_error(const std::ostream& out) {
    if (const auto* b = dynamic_cast<const FdOutputBuffer*>(out.rdbuf())) return b->error();
    return 0;
}

void reserve_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) {
            (void)::dup2(opened, fd);
            ::close(opened);
        }
    }
}

}  // namespace gpuadvise::io
