#include "cli/commands.hpp"

namespace gpuadvise::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"recommend", "Which offer to rent for a PyTorch job, on which plan, and why", setup_recommend},
        {"plan", "Plan several jobs together: the committed instances that serve them all", setup_plan},
        {"gpus", "List GPU models with their datasheet specs", setup_gpus},
        {"offers", "List and filter provider offers with their prices", setup_offers},
        {"compare", "Compare GPUs side by side: specs, cheapest prices, $/TFLOPS-hour", setup_compare},
        {"check-env", "Check a GPU / driver / CUDA / PyTorch combination (this machine's, or the given one)",
         setup_check_env},
        {"estimate", "Estimate memory and time of a training or inference job per GPU", setup_estimate},
        {"models", "List the model presets and their default jobs", setup_models},
        {"catalog", "Check a catalog, show what it holds, import SkyPilot tables", setup_catalog},
        {"completion", "Print a shell completion script (bash, zsh or fish)", setup_completion, false},
        {"config", "Show the effective settings: defaults, the configuration file, the command line",
         setup_config},
        {"man", "", setup_man, false},                     // hidden: the man pages, for the build
        {"__complete", "", setup_complete_values, false},  // hidden: catalog values for the completions
    };
    return table;
}

}  // namespace gpuadvise::cli
