// GPU specs: a bare model number is a name ("4090"); a count is ":N" after it or "xN".
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_gpu_spec_numbers {

using namespace gpuadvise;

TEST_CASE("a bare number first in a GPU spec is a model name, counts need :N or xN", "[core]") {
    const GpuSpec bare = parse_gpu_spec("4090");
    CHECK(bare.names == std::vector<std::string>{"4090"});
    CHECK_FALSE(bare.count);  // was read as 4,090 GPUs of any kind
    CHECK(parse_gpu_spec("A100:8").count == 8);
    CHECK(parse_gpu_spec("4090:2").count == 2);
    const GpuSpec x = parse_gpu_spec("x8");
    CHECK(x.count == 8);
    CHECK(x.names.empty());
    CHECK(parse_gpu_spec("A100:80GB:x8").count == 8);
}

}  // namespace unit_test_gpu_spec_numbers
