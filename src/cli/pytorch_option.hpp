// --pytorch VERSION[+cuXYZ], shared by `offers` and `recommend`.
#pragma once

#include <string>

#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/compat/compat.hpp"

namespace gpuadvise::cli {

// Parses and checks the release is in the compatibility tables; UsageError otherwise.
PytorchVersion parse_pytorch_option(const Catalog& catalog, const std::string& text);

}  // namespace gpuadvise::cli
