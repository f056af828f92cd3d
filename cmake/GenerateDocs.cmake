# Build step (cmake -P): the man pages and shell completions, written by the built gpuadvise from
# its own command table, so that they cannot drift from --help. Variables: GPUADVISE (the binary),
# OUT (the directory: man/man1/*.1.gz, completions/{gpuadvise,_gpuadvise,gpuadvise.fish}), STAMP.
file(REMOVE_RECURSE "${OUT}/man" "${OUT}/completions")
file(MAKE_DIRECTORY "${OUT}/man/man1" "${OUT}/completions")

function(run_gpuadvise)
  execute_process(COMMAND "${GPUADVISE}" ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gpuadvise ${ARGN} failed (${rc}): ${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run_gpuadvise(man --output-dir "${OUT}/man/man1")
file(GLOB pages "${OUT}/man/man1/*.1")
foreach(page IN LISTS pages)
  # gzip -9n: Debian policy 12.1 (no name or time stamp in the header, so builds are reproducible).
  execute_process(COMMAND gzip -9nf "${page}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()

run_gpuadvise(completion bash)
file(WRITE "${OUT}/completions/gpuadvise" "${output}")
run_gpuadvise(completion zsh)
file(WRITE "${OUT}/completions/_gpuadvise" "${output}")
run_gpuadvise(completion fish)
file(WRITE "${OUT}/completions/gpuadvise.fish" "${output}")
file(WRITE "${STAMP}" "")
