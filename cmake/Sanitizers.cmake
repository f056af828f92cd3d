add_library(gpuadvise_sanitizers INTERFACE)
if(GPUADVISE_SANITIZE)
  target_compile_options(gpuadvise_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(gpuadvise_sanitizers INTERFACE -fsanitize=address,undefined)
  # For code that must step aside under the sanitizer's allocator and leak checker.
  target_compile_definitions(gpuadvise_sanitizers INTERFACE GPUADVISE_SANITIZED=1)
endif()
