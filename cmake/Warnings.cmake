add_library(gpuadvise_warnings INTERFACE)
target_compile_options(gpuadvise_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
  $<$<BOOL:${GPUADVISE_DEV}>:-Werror>
  # GCC 12's -Wmaybe-uninitialized misfires inside libstdc++ (<regex>, <optional>) when the address
  # sanitizer's instrumentation meets -O2; the release build keeps the warning for our code.
  $<$<AND:$<BOOL:${GPUADVISE_SANITIZE}>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
