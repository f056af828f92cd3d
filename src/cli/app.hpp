// The command-line front end: parses arguments, runs one command and turns every error into
// "gpuadvise: error: ..." on stderr and an exit code (0 ok, 1 data, 2 usage, 3 no result).
#pragma once

#include <ostream>
#include <span>
#include <string_view>

namespace gpuadvise::cli {

// Runs one command line. The output is flushed and checked at the end: a failed write prints
// "gpuadvise: error: writing the output: REASON" and returns 1; a closed pipe (EPIPE) returns
// kBrokenPipeExit without a message.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);
inline constexpr int kBrokenPipeExit = 141;  // 128 + SIGPIPE, what a shell shows for a killed writer

// main(): standard output through a checked io::FdOutputBuffer on descriptor 1, closed standard
// descriptors reserved first (io::reserve_standard_descriptors), then run().
int run_main(int argc, const char* const* argv);

// For main(): the process exits right after this run, so the catalog (a million offers' worth of
// strings) and the parser are left to the operating system instead of being freed piece by piece.
// Not used where a leak checker runs (sanitizer builds) or where run() is called repeatedly (tests, fuzzers).
void exit_after_run();
// The global options that take no value (-q, --json, --wide, ...): a line may give them before its
// command and still have that command's options alone set up (exposed for a test against the options).
std::span<const std::string_view> global_flags();
// The global options that take one value (--catalog FILE, --currency CODE, ...): the same, with their
// value (exposed for the same test).
std::span<const std::string_view> global_value_options();
// For the tests of that set-up: the command a line's one-command set-up chooses (nullptr: none, every
// command is set up), and a line run with every command set up whatever it names.
const char* told_command(int argc, const char* const* argv);
int run_every_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gpuadvise::cli
