// Standard output that knows why it failed: a stream buffer over a file descriptor whose every
// write(2) is checked and whose first error (errno) is kept, so that cli::run can end with
// "gpuadvise: error: writing the output: No space left on device" and exit 1 instead of 0.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace gpuadvise::io {

class FdOutputBuffer : public std::streambuf {
public:
    explicit FdOutputBuffer(int fd);
    ~FdOutputBuffer() override;
    FdOutputBuffer(const FdOutputBuffer&) = delete;
    FdOutputBuffer& operator=(const FdOutputBuffer&) = delete;
    int error() const { return error_; }  // errno of the first failed write; 0 while none failed

protected:
    int_type overflow(int_type c) override;
    int sync() override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

private:
    bool write_all(const char* data, std::size_t size);
    bool drain();
    int fd_;
    int error_ = 0;
    std::vector<char> buffer_;
};

// The errno of the failed write behind `out` when it is a FdOutputBuffer stream, else 0.
int output_error(const std::ostream& out);

// Standard descriptors 0, 1 and 2 that are closed at start-up are opened on /dev/null (1 read-only,
// so that writes to a closed standard output still fail, with EBADF) before any file is opened: a
// catalog file opened as descriptor 1 would otherwise receive the output.
void reserve_standard_descriptors();

}  // namespace gpuadvise::io
