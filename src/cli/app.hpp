// The command-line front end: parses arguments, runs one command and turns every error into
// "gpuadvise: error: ..." on stderr and an exit code (0 ok, 1 data, 2 usage, 3 no result).
#pragma once

#include <ostream>

namespace gpuadvise::cli {

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// For main(): the process exits right after this run, so the catalog (a million offers' worth of
// strings) is left to the operating system instead of being freed piece by piece. Not used
// where a leak checker runs (sanitizer builds) or where run() is called repeatedly (tests, fuzzers).
void exit_after_run();

}  // namespace gpuadvise::cli
