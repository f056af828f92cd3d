#include "cli/app.hpp"

int main(int argc, char** argv) {
#if !defined(GPUADVISE_SANITIZED)
    gpuadvise::cli::exit_after_run();  // the catalog is freed by the exit (a leak checker would report it)
#endif
    return gpuadvise::cli::run_main(argc, argv);
}
