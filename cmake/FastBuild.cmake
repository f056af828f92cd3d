# gpuadvise_fast_build(target): unity batches (GPUADVISE_UNITY) of GPUADVISE_UNITY_BATCH source files.
#
# In a unity batch several source files are one translation unit, and which files share a batch moves
# as files are added: two files of a unity target must not define the same name at namespace scope, in
# an anonymous namespace too. Rename a clash, or mark the file with
# set_source_files_properties(FILE PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON). The core rooms are unity
# targets too: the model room's 11 files took 20.8 s of CPU one by one and 9.1 s as one translation unit
# (-O2 -g1; docs/performance.md), most of a small file being the standard headers it includes.
#
# No precompiled headers: measured (docs/performance.md), GCC 12 loading the ~100 MB .gch of CLI11 +
# nlohmann/json + Catch2 took longer than parsing them for a test file (13.4 s against 9.2 s) and saved
# under 10 % on a library batch.
set(GPUADVISE_UNITY_BATCH 8 CACHE STRING "Source files per unity batch")
function(gpuadvise_fast_build target)
  if(GPUADVISE_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH
                          UNITY_BUILD_BATCH_SIZE ${GPUADVISE_UNITY_BATCH})
  endif()
endfunction()
