// The job knobs shared by `estimate` and `recommend`: --model, --params, --task, --precision, …
// They fill a WorkloadRequest; make_workload (core) validates them.
#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "cli/command_app.hpp"
#include "gpuadvise/base/format.hpp"  // format_count for the tables that show a workload
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise::cli {

void add_workload_options(CommandApp& app, WorkloadRequest& request);
// Reads --model-config FILE (io/hf_config.hpp) into the request; DataError with the file's location.
void load_model_config(WorkloadRequest& request);

// {"model", "model_name", "requested_as", "kind", "params", "task", "precision", "optimizer", …,
// "assumptions"}: the workload block of the JSON of estimate and recommend.
nlohmann::ordered_json workload_json(const Workload& w);
// {"data", "tensor", "pipeline", "zero_stage", "micro_batch", "grad_accumulation", "nodes",
// "gpus_per_node", "activation_checkpointing"}: the layout of a configuration.
nlohmann::ordered_json parallelism_json(const Configuration& c);
// {"tokens_per_s", "time_to_first_token_s", "time_per_output_token_s", "cost_per_million_tokens", …} or null.
nlohmann::ordered_json serving_json(const std::optional<ServingEstimate>& s);
// Short layout label for tables: "dp4 tp2 z1 mb2x8 ckpt".
std::string layout_label(const Configuration& c, bool training);
// One line describing the job, for the lead of a table ("bert -> bert-large (BERT-Large), finetune, …").
std::string workload_summary(const Workload& w);

}  // namespace gpuadvise::cli
