add_library(gpuadvise_sanitizers INTERFACE)
if(GPUADVISE_SANITIZE)
  target_compile_options(gpuadvise_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(gpuadvise_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
