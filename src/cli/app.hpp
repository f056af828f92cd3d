// The command-line front end: parses arguments, runs one command and turns every error into
// "gpuadvise: error: ..." on stderr and an exit code (0 ok, 1 data, 2 usage, 3 no result).
#pragma once

#include <ostream>

namespace gpuadvise::cli {

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gpuadvise::cli
