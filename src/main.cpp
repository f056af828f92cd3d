#include <iostream>

#include "cli/app.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GPUADVISE_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUADVISE_LEAK_CHECKED 1
#endif
#endif

int main(int argc, char** argv) {
#if !defined(GPUADVISE_LEAK_CHECKED)
    gpuadvise::cli::exit_after_run();  // the catalog is freed by the exit (a leak checker would report it)
#endif
    return gpuadvise::cli::run(argc, argv, std::cout, std::cerr);
}
