#include "cli/pytorch_option.hpp"

#include "gpuadvise/base/errors.hpp"

namespace gpuadvise::cli {

PytorchVersion parse_pytorch_option(const Catalog& catalog, const std::string& text) {
    auto version = parse_pytorch_version(text);
    if (!version)
        throw UsageError("--pytorch: '" + text + "' is not a PyTorch version",
                         "e.g. --pytorch 2.1 or --pytorch 2.1+cu118");
    if (!catalog.compat.find_release(*version))
        throw UsageError("--pytorch: PyTorch " + version->series() + " is not in the compatibility tables",
                         "docs/compatibility.md lists the releases covered");
    return *version;
}

}  // namespace gpuadvise::cli
