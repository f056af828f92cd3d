// libFuzzer target: a whole command line run in-process (cli::run), one argument per input line.
// Arguments that would read other files, write files or probe this machine are refused so that
// a run depends on the input alone: --catalog, --model-config, `catalog validate/import`, check-env without
// arguments or with --detect.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/app.hpp"

namespace {

bool refused(const std::vector<std::string>& args) {
    bool check_env = false, env_given = false;
    for (const auto& a : args) {
        if (a.rfind("--catalog", 0) == 0 || a.rfind("--model-config", 0) == 0 || a == "validate" ||
            a == "import" || a.rfind("--detect", 0) == 0)
            return true;
        if (a == "check-env") check_env = true;
        for (const char* opt : {"--gpu", "--driver", "--cuda", "--pytorch", "--precision"})
            if (a.rfind(opt, 0) == 0) env_given = true;
    }
    return check_env && !env_given;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    unsetenv("GPUADVISE_CATALOG");
    setenv("GPUADVISE_TODAY", "2026-11-29", 1);
    setenv("NO_COLOR", "1", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args{"gpuadvise"};
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    if (rest.find('\0') != std::string_view::npos) return 0;  // argv strings cannot hold NUL
    while (!rest.empty()) {
        std::size_t nl = rest.find('\n');
        args.emplace_back(rest.substr(0, nl));
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    if (args.size() > 64 || refused(args)) return 0;
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    // The exit-code contract: 0 ok, 1 data, 2 usage, 3 nothing satisfies; a failure says why.
    if (code < 0 || code > 3) std::abort();
    // (Messages echo the arguments, so match whole lines, not text an argument could contain.)
    const std::string messages = "\n" + err.str();
    if (code != 0 && code != 3 && messages.find("\ngpuadvise: error: ") == std::string::npos) std::abort();
    if (messages.find("\ngpuadvise: error: internal error") != std::string::npos) std::abort();
    return 0;
}
