// Training stacks (stack.hpp): each efficiency is the published throughput of one run over what the
// time model estimates for the same job (model, GPUs, sequence, batch, precision); the runs and the
// estimates are in docs/methodology.md, "Training stacks".
#include "gpuadvise/model/stack.hpp"

#include <array>

namespace gpuadvise {
namespace {

constexpr std::array<StackProfile, 7> kStacks{{
    {TrainingStack::tuned, "a tuned stack (the time model, Megatron class)", 1.0, true,
     "the time model's calibration on published pre-training runs (docs/methodology.md 5b)"},
    // Alpaca: LLaMA-7B, 52k examples x 3 epochs, max length 512, 8 x A100 80GB, HF Trainer + FSDP
    // full_shard, 3 h (tatsu-lab/stanford_alpaca README @7f08532 and blog); the model: 0.641 h.
    {TrainingStack::hf_trainer, "the Hugging Face Trainer (FSDP)", 0.214, true,
     "Stanford Alpaca: LLaMA-7B full fine-tune, 8 x A100 80GB, HF Trainer + FSDP, 3 h published against "
     "0.64 h estimated"},
    // IBM + PyTorch, "Maximizing training throughput using PyTorch FSDP" (pytorch.org blog, 2024):
    // Llama-2-7B, 128 A100, 400 Gbps RDMA, 2 x 4096 tokens per GPU: 3,700 tokens/s/GPU; the model 4,120.
    {TrainingStack::accelerate_fsdp, "PyTorch FSDP (accelerate)", 0.90, true,
     "IBM/PyTorch FSDP blog (2024): Llama-2-7B on 128 A100, 3,700 tokens/s/GPU against 4,120 estimated; "
     "an untuned accelerate loop is slower (see hf-trainer)"},
    {TrainingStack::deepspeed, "DeepSpeed ZeRO", 0.90, false,
     "no DeepSpeed run of its own here: PyTorch FSDP's factor (the same ZeRO-3 sharding)"},
    // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76: Llama 3.1 8B, 8 H100,
    // FSDP, local batch 2 x 8192, bf16: 5,762 tokens/s/GPU; the model 9,481.
    {TrainingStack::torchtitan, "torchtitan (FSDP2)", 0.61, true,
     "torchtitan benchmarks (2024-12): Llama 3.1 8B on 8 H100, 5,762 tokens/s/GPU against 9,481 estimated"},
    // NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @df0289c (25.11, DGX-H100, FP8):
    // LLAMA3_8B 8 GPUs 14,451 tokens/s/GPU (model 16,245); LLAMA3_70B 64 GPUs TP4 PP8 1,602 (model 1,763).
    {TrainingStack::megatron, "Megatron-LM / Megatron-Core", 0.90, true,
     "Megatron-Bridge performance summary (25.11, H100 FP8): Llama 3 8B 14,451 and 70B 1,602 tokens/s/GPU "
     "against 16,245 and 1,763 estimated"},
    {TrainingStack::nemo, "NVIDIA NeMo (Megatron-Bridge)", 0.90, true,
     "Megatron-Bridge performance summary (25.11, H100 FP8): Llama 3 8B 14,451 and 70B 1,602 tokens/s/GPU "
     "against 16,245 and 1,763 estimated"},
}};

}  // namespace

const StackProfile& stack_profile(TrainingStack id) {
    for (const auto& s : kStacks)
        if (s.id == id) return s;
    return kStacks[0];
}

}  // namespace gpuadvise
