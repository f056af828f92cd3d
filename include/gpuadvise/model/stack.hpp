// The training software stack: how much of the time model's speed a stack reaches (each factor from
// a published run, docs/methodology.md, "Training stacks").
#pragma once

#include <string_view>

#include "gpuadvise/base/names.hpp"

namespace gpuadvise {

// `tuned` is the time model as calibrated on published pre-training runs (Megatron-class stacks).
enum class TrainingStack { tuned, hf_trainer, accelerate_fsdp, deepspeed, torchtitan, megatron, nemo };
inline constexpr NameTable<TrainingStack, 7> kTrainingStackNames{
    {{{TrainingStack::tuned, "tuned"},
      {TrainingStack::hf_trainer, "hf-trainer"},
      {TrainingStack::accelerate_fsdp, "accelerate-fsdp"},
      {TrainingStack::deepspeed, "deepspeed"},
      {TrainingStack::torchtitan, "torchtitan"},
      {TrainingStack::megatron, "megatron"},
      {TrainingStack::nemo, "nemo"}}}};

struct StackProfile {
    TrainingStack id;
    std::string_view name;
    double efficiency;        // share of the time model's throughput the stack reaches
    bool calibrated;          // false: no published run of its own (the factor is borrowed, said so)
    std::string_view source;  // the published run the factor comes from
};

const StackProfile& stack_profile(TrainingStack id);

}  // namespace gpuadvise
