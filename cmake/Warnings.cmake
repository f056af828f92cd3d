add_library(gpuadvise_warnings INTERFACE)
target_compile_options(gpuadvise_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
  $<$<BOOL:${GPUADVISE_DEV}>:-Werror>)
