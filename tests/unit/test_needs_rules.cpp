// The needs analysis on in-memory catalogs: each step's rule (model size tier, training frequency,
// dataset, scaling and network) and the over-buying pitfall, as a user reads them in the output.
#include <catch2/catch.hpp>

#include <cstdio>

#include "engine_catalog.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_needs_rules {

using namespace enginetest;

namespace {

Catalog every_gpu() {
    Catalog c = base_catalog();
    add(c, make_provider("p"),
        {make_offer("p", "t4", 1, {0.30, {}, {}}), make_offer("p", "v100", 1, {0.90, {}, {}}),
         make_offer("p", "a100", 1, {2.00, {}, {}}), make_offer("p", "h100", 1, {4.00, {}, {}})});
    return c;
}

}  // namespace

TEST_CASE("step 1: the source's size tiers name T4, V100 or A100; the policy moves the limits", "[core]") {
    Catalog c = every_gpu();
    auto small = recommend(c, request(c, "tinynet"));
    CHECK(small.heuristic_gpu_family == "T4");
    REQUIRE(finding(small, "1.tier_heuristic"));
    CHECK(finding(small, "1.tier_heuristic")->message ==
          "the guide's rule of thumb: 1M parameters is small (LeNet-class) -> T4");
    CHECK(finding(small, "1.tier_heuristic")->number("params") == 1e6);
    auto medium = recommend(c, request(c, "midnet"));
    CHECK(medium.heuristic_gpu_family == "V100");
    CHECK(finding(medium, "1.tier_heuristic")->message ==
          "the guide's rule of thumb: 25M parameters is medium (ResNet-class) -> V100");
    auto large = recommend(c, request(c, "bignet"));
    CHECK(large.heuristic_gpu_family == "A100");
    CHECK(kind_of(*finding(large, "1.tier_heuristic")) == "heuristic");

    c.policy.set("tier_medium_max_params", 1e7);  // 25 M is now "large"
    CHECK(recommend(c, request(c, "midnet")).heuristic_gpu_family == "A100");
    c.policy.set("tier_small_max_params", 3e7);  // ... and now "small"
    CHECK(recommend(c, request(c, "midnet")).heuristic_gpu_family == "T4");
}

TEST_CASE("step 1: the computed memory need names the smallest GPU that holds the job", "[core]") {
    Catalog c = every_gpu();
    auto r = recommend(c, request(c, "bignet"));  // 300 M parameters: about 5 GB of states
    const Finding* need = finding(r, "1.memory_need");
    REQUIRE(need);
    CHECK(contains(need->message, "the smallest GPU that holds it alone is t4 (16 GB)"));
    CHECK(need->kind == FindingKind::constraint);
    CHECK(need->number("gpu_memory_gb") == 16);
    CHECK(need->number("memory_gb_per_gpu").value_or(0) > 0);
    CHECK(need->number("memory_gb_per_gpu").value_or(99) <= 16);
    // The tier asks for an A100 (80 GB) but a 16 GB GPU holds the job: said, and every GPU is priced.
    const Finding* vs = finding(r, "1.tier_vs_computed");
    REQUIRE(vs);
    CHECK(contains(vs->message, "the guide's rule of thumb asks for A100, but the job fits a 16 GB GPU"));
    CHECK(vs->number("gpu_memory_gb") == 16);
    // The cheapest option is not an A100, and the output says what the A100 would have cost.
    CHECK(r.ranked[0].gpu->family != "A100");
    CHECK(contains(r.why_not_heuristic,
                   "the guide's size rule of thumb picks A100; its best option (p a100 x1, on-demand)"));

    c.models.push_back(make_cnn("widenet", 1.5e9, 1000));  // 24 GB of states: too big for 16 GB
    auto wide = recommend(c, request(c, "widenet"));
    REQUIRE(finding(wide, "1.memory_need"));
    CHECK(contains(finding(wide, "1.memory_need")->message,
                   "the smallest GPU that holds it alone is a100 (80 GB)"));
    CHECK(finding(wide, "1.memory_need")->number("gpu_memory_gb") == 80);
}

TEST_CASE("a one-off job: no runs-a-week wording; step 1 names the GPU of each memory figure", "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("p"), {make_offer("p", "a100", 1, {2.0, 500.0, {}})});
    RecommendRequest r = request(c, "midnet", 0, 1.0, "a100");
    r.runs = 3;
    auto once = recommend(c, r);
    REQUIRE_FALSE(once.ranked.empty());
    const Finding* h = finding(once, "2.frequency_heuristic");
    REQUIRE(h);
    CHECK(contains(h->message, "a one-off job of 3 runs does not recur -> on-demand"));
    CHECK_FALSE(contains(h->message, "0 runs a week"));
    const Finding* be = finding(once, "2.break_even");
    REQUIRE(be);
    CHECK(contains(be->message, "one-off, 3 runs x "));
    CHECK_FALSE(contains(be->message, "runs/month"));
    // Step 1's figure is the smallest GPU's layout, named; #1's own figure, when it differs, is named too.
    const Finding* need = finding(once, "1.memory_need");
    REQUIRE(need);
    const Candidate& top = once.ranked[0];
    const auto smallest = need->number("gpu_memory_gb");
    REQUIRE(smallest);
    if (top.gpu->memory_gb != *smallest) {
        CHECK(contains(need->message, "; #1 (" + top.gpu->id + " x1, its own layout) uses "));
        CHECK(need->number("top_memory_gb_per_gpu") == Approx(top.estimate.memory_required_gb));
    }
    CHECK(contains(once.why_top.back(), "GB per GPU on " + top.gpu->id + ")"));
}

TEST_CASE("step 2: more than 3 runs a week is the source's reserved rule; the break-even decides", "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("p"), {make_offer("p", "a100", 1, {2.0, 500.0, {}})});
    auto often = recommend(c, request(c, "midnet", 4, 1.0, "a100"));  // 17 h a month: far below 250 h
    REQUIRE(finding(often, "2.frequency_heuristic"));
    CHECK(finding(often, "2.frequency_heuristic")->message ==
          "the guide's rule of thumb: 4 runs a week is more than 3 -> monthly reserved");
    CHECK(finding(often, "2.frequency_heuristic")->number("runs_per_week") == 4);
    CHECK(finding(often, "2.frequency_heuristic")->number("threshold_runs_per_week") == 3);
    CHECK_FALSE(finding(often, "2.frequency_heuristic")->number("no_such_number"));
    CHECK(often.ranked[0].cost.plan == Plan::on_demand);
    REQUIRE(finding(often, "2.heuristic_differs"));
    CHECK(contains(finding(often, "2.heuristic_differs")->message,
                   "the guide's rule of thumb would pick reserved"));

    auto rare = recommend(c, request(c, "midnet", 2, 1.0, "a100"));
    CHECK(finding(rare, "2.frequency_heuristic")->message ==
          "the guide's rule of thumb: 2 runs a week is not more than 3 -> on-demand");
    CHECK_FALSE(finding(rare, "2.heuristic_differs"));  // both say on-demand

    c.policy.set("reserved_runs_per_week_heuristic", 5);
    auto moved = recommend(c, request(c, "midnet", 4, 1.0, "a100"));
    CHECK(finding(moved, "2.frequency_heuristic")->message ==
          "the guide's rule of thumb: 4 runs a week is not more than 5 -> on-demand");
    CHECK(finding(moved, "2.frequency_heuristic")->number("threshold_runs_per_week") == 5);
    CHECK_FALSE(finding(moved, "2.heuristic_differs"));
}

TEST_CASE("step 3: dataset rules (none given, high-resolution images, storage, host RAM)", "[core]") {
    Catalog c = base_catalog();
    Offer small_host = make_offer("p", "t4", 1, {0.30, {}, {}});
    small_host.ram_gb = 20;  // below 2 x 16 GB
    small_host.local_disk_gb = 200;
    Offer big_host = make_offer("p", "a100", 1, {2.00, {}, {}});
    big_host.ram_gb = 256;
    big_host.local_disk_gb = 2000;
    add(c, make_provider("p"), {small_host, big_host});

    auto plain = recommend(c, request(c, "midnet"));
    REQUIRE(finding(plain, "3.dataset"));
    CHECK(contains(finding(plain, "3.dataset")->message, "no dataset given"));
    CHECK_FALSE(finding(plain, "3.hires_heuristic"));
    REQUIRE(plain.ranked.size() == 2);
    const Candidate& t4 = plain.ranked[0].gpu->id == "t4" ? plain.ranked[0] : plain.ranked[1];
    const Candidate& a100 = plain.ranked[0].gpu->id == "t4" ? plain.ranked[1] : plain.ranked[0];
    // #13: the guide's 2x-GPU-memory rule is a step-3 note, not a warning on every row.
    CHECK_FALSE(has_warning(t4, "host RAM"));
    CHECK_FALSE(has_warning(a100, "host RAM"));
    REQUIRE(finding(plain, "3.host_ram_heuristic"));
    CHECK(contains(finding(plain, "3.host_ram_heuristic")->message,
                   "the guide's rule of thumb: host RAM of at least 2x"));
    CHECK(finding(plain, "3.host_ram_heuristic")->number("host_ram_per_gpu_memory") == 2);
    REQUIRE(finding(plain, "3.host_ram"));

    auto req = request(c, "midnet");
    req.dataset = Dataset::image_hires;
    req.dataset_gb = 500;
    auto hires = recommend(c, req);
    REQUIRE(finding(hires, "3.hires_heuristic"));
    CHECK(contains(finding(hires, "3.hires_heuristic")->message, "want the 80 GB class"));
    CHECK(finding(hires, "3.hires_heuristic")->number("gpu_memory_gb") == 80);
    REQUIRE(finding(hires, "3.storage"));
    CHECK(contains(finding(hires, "3.storage")->message, "dataset of 500 GB"));
    CHECK(finding(hires, "3.storage")->number("dataset_gb") == 500);
    for (const auto& x : hires.ranked) {
        INFO(x.gpu->id);
        CHECK(has_warning(x, "local disk 200 GB is smaller than the 500 GB dataset") == (x.gpu->id == "t4"));
    }
    // The winner has less than 80 GB: the output says the computed memory fits it anyway.
    if (hires.ranked[0].gpu->memory_gb < 80) REQUIRE(finding(hires, "3.hires_vs_computed"));

    // #13: a host whose RAM cannot hold the checkpoint while it loads is rejected (host_ram): here
    // the policy reserve alone (30 GB) exceeds the small host's 20 GB.
    c.policy.set("host_ram_reserve_gb", 30);
    auto tight = recommend(c, request(c, "midnet"));
    REQUIRE(tight.ranked.size() == 1);
    CHECK(tight.ranked[0].gpu->id == "a100");
    bool rejected = false;
    for (const auto& r : tight.rejected)
        if (r.constraint == Constraint::host_ram && r.offer->gpu == "t4")
            rejected = contains(r.reason, "host RAM 20 GB cannot hold the checkpoint");
    CHECK(rejected);
}

namespace {

// Two providers of 8x A100 nodes: one with 100 Gbit/s RDMA, one with a plain 10 Gbit/s network.
Catalog two_networks() {
    Catalog c = base_catalog();
    Provider fast = make_provider("rdma-cloud");
    fast.rdma = true;
    fast.rdma_gbps = 100;
    fast.network_gbps = 100;
    Provider slow = make_provider("plain-cloud");
    slow.network_gbps = 10;
    add(c, fast, {make_offer("rdma-cloud", "a100", 8, {20.0, {}, {}})});
    add(c, slow, {make_offer("plain-cloud", "a100", 8, {16.0, {}, {}})});
    return c;
}

}  // namespace

TEST_CASE("step 4: one GPU needs no interconnect", "[core]") {
    Catalog c = every_gpu();
    auto r = recommend(c, request(c, "midnet"));
    REQUIRE(finding(r, "4.single_gpu"));
    CHECK_FALSE(finding(r, "4.multi_node"));
    CHECK(finding(r, "pitfall.network")->message ==
          "every listed option runs inside one node: no inter-node network needed");
}

TEST_CASE("step 4: several nodes want RDMA; without it a warning, or exclusion by policy", "[core]") {
    Catalog c = two_networks();
    auto req = request(c, "midnet");
    req.nodes = 2;
    auto r = recommend(c, req);
    REQUIRE(r.ranked.size() == 2);
    for (const auto& x : r.ranked) {
        INFO(x.offer->provider);
        CHECK(x.instances == 2);
        CHECK(x.gpu_count == 16);
        CHECK(has_warning(
                  x, "2 nodes over a 10 Gbps network without RDMA (the source asks for >= 25 Gbps RDMA)") ==
              (x.offer->provider == "plain-cloud"));
    }
    REQUIRE(finding(r, "4.multi_node"));
    CHECK(kind_of(*finding(r, "4.multi_node")) == "constraint");
    CHECK(contains(finding(r, "4.multi_node")->message,
                   "2 nodes: each needs NVLink inside and RDMA of >= 25 Gbps"));
    CHECK(finding(r, "pitfall.network")->message ==
          "multi-node options listed: check the network warnings on each");

    c.policy.set("multi_node_without_rdma_exclude", 1);
    auto strict = recommend(c, req);
    CHECK(ranked_names(strict) == std::vector<std::string>{"rdma-cloud/a100 x16@r1"});
    REQUIRE(rejections(strict, "network").size() == 1);
    CHECK(rejections(strict, "network")[0]->offer->provider == "plain-cloud");

    c.policy.set("multi_node_min_network_gbps", 200);  // 100 Gbit/s RDMA is no longer enough
    auto stricter = recommend(c, req);
    CHECK(stricter.ranked.empty());
    CHECK(binding_constraint(stricter) == "network");
}

TEST_CASE("step 4: a 1 Gbit/s network between nodes is flagged; scaling plans look for one node", "[core]") {
    Catalog c = base_catalog();
    Provider lan = make_provider("lan");
    lan.network_gbps = 1;
    add(c, lan, {make_offer("lan", "a100", 8, {16.0, {}, {}})});
    auto req = request(c, "midnet");
    req.nodes = 2;
    auto r = recommend(c, req);
    REQUIRE(r.ranked.size() == 1);
    REQUIRE(finding(r, "4.slow_network"));
    CHECK(contains(finding(r, "4.slow_network")->message, "a 1 Gbps network between nodes"));
    REQUIRE(finding(r, "4.communication"));
    CHECK(contains(finding(r, "4.communication")->message, "16 GPUs: scaling efficiency about"));

    Catalog one = every_gpu();
    add(one, make_provider("big"),
        {make_offer("big", "a100", 1, {2.5, {}, {}}), make_offer("big", "a100", 8, {20.0, {}, {}})});
    auto grow = request(one, "midnet");
    grow.gpu.names = {"A100"};
    grow.providers = {"big"};
    grow.scale_to = 8;
    auto g = recommend(one, grow);
    REQUIRE(finding(g, "4.scale_to"));
    CHECK(finding(g, "4.scale_to")->message ==
          "big offers 8x a100 in one node: growing to 8 GPUs stays on one node");
    grow.scale_to = 32;
    auto far = recommend(one, grow);
    REQUIRE(finding(far, "4.scale_to"));
    CHECK(kind_of(*finding(far, "4.scale_to")) == "warning");
    CHECK(contains(finding(far, "4.scale_to")->message,
                   "growing to 32 GPUs needs several nodes at big, which lists no RDMA"));
}

TEST_CASE("step 4: communication above the policy's share of step time is warned about", "[core]") {
    Catalog c = two_networks();
    auto req = request(c, "midnet");
    req.nodes = 2;
    auto r = recommend(c, req);
    REQUIRE_FALSE(r.ranked.empty());
    const double share = r.ranked[0].estimate.comm_share;
    REQUIRE(share > 0);
    c.policy.set("comm_share_warn", share * 0.5);
    CHECK(finding(recommend(c, req), "4.communication_high"));
    c.policy.set("comm_share_warn", share * 2);
    CHECK_FALSE(finding(recommend(c, req), "4.communication_high"));
}

namespace {

// A premium A100 and a T4 that is much cheaper. tinynet's run is so short that the 10 billed minutes
// of set-up dominate it on either GPU, so the T4 reaches nearly all of the A100's speed.
Catalog overbuy(double t4_price = 0.30) {
    Catalog c = base_catalog();
    c.policy.set("run_setup_minutes", 10);
    add(c, make_provider("cheapco"), {make_offer("cheapco", "t4", 1, {t4_price, {}, {}})});
    add(c, make_provider("premium"), {make_offer("premium", "a100", 1, {2.00, {}, {}})});
    return c;
}

RecommendRequest only_a100(const Catalog& c, const std::string& model) {
    auto req = request(c, model);
    req.gpu.names = {"A100"};
    return req;
}

}  // namespace

TEST_CASE("over-buying: a cheaper GPU with at least 85% of the speed is named on the premium option",
          "[core]") {
    Catalog c = overbuy();
    auto r = recommend(c, only_a100(c, "tinynet"));
    REQUIRE(r.ranked.size() == 1);
    const Candidate& a100 = r.ranked[0];
    CHECK(a100.gpu->id == "a100");
    REQUIRE(has_warning(a100, "over-buying: t4 x1 (cheapco) delivers"));
    // The figures are per run: the T4's speed and cost per run against the A100's.
    char a100_cost[32];
    std::snprintf(a100_cost, sizeof a100_cost, " USD vs %.4f USD)", a100.cost.cost_per_run);
    CHECK(has_warning(a100, "% of the cost per run ("));
    CHECK(has_warning(a100, a100_cost));
    const Finding* pitfall = finding(r, "pitfall.over_buying");
    REQUIRE(pitfall);
    CHECK(kind_of(*pitfall) == "warning");
    CHECK(contains(pitfall->message, "a100: over-buying: t4 x1 (cheapco)"));
}

TEST_CASE("over-buying: not when the cheaper GPU is too slow, barely cheaper, or the policy asks for more",
          "[core]") {
    Catalog c = overbuy();
    c.policy.set("run_setup_minutes", 0);  // midnet without set-up: the T4 is several times slower
    auto slow = recommend(c, only_a100(c, "midnet"));
    REQUIRE(slow.ranked.size() == 1);
    CHECK_FALSE(has_warning(slow.ranked[0], "over-buying"));
    REQUIRE(finding(slow, "pitfall.over_buying"));
    CHECK(kind_of(*finding(slow, "pitfall.over_buying")) == "explanation");
    CHECK(finding(slow, "pitfall.over_buying")->message ==
          "no listed option is beaten by a cheaper GPU reaching 85% of its speed");

    Catalog close = overbuy(1.97);  // the T4 costs about as much per run as the A100
    auto same = recommend(close, only_a100(close, "tinynet"));
    CHECK_FALSE(has_warning(same.ranked[0], "over-buying"));

    Catalog strict = overbuy();
    strict.policy.set("overbuy_speed_fraction", 1.01);  // nothing slower is ever enough
    auto never = recommend(strict, only_a100(strict, "tinynet"));
    CHECK_FALSE(has_warning(never.ranked[0], "over-buying"));
    CHECK(contains(finding(never, "pitfall.over_buying")->message, "reaching 101% of its speed"));
}

TEST_CASE("step 1 and the estimate: a tiny model, 'a CPU would do' and tight memory follow the policy",
          "[core]") {
    Catalog c = every_gpu();
    auto notes_of = [](const Recommendation& r) {
        std::string all;
        for (const auto& n : r.ranked.at(0).estimate.notes) all += n + "\n";
        return all;
    };
    auto gpu_job = recommend(c, request(c, "tinynet"));  // tiny, but too much work in all for a CPU
    REQUIRE(finding(gpu_job, "1.tiny_model"));
    CHECK_FALSE(contains(finding(gpu_job, "1.tiny_model")->message, "CPU"));
    CHECK_FALSE(contains(notes_of(gpu_job), "CPU"));

    c.policy.set("cpu_max_flops", 1e30);  // any amount of work and memory is fine for a CPU now
    c.policy.set("cpu_max_memory_gb", 1e6);
    auto tiny = recommend(c, request(c, "tinynet"));
    REQUIRE(finding(tiny, "1.tiny_model"));
    CHECK(contains(finding(tiny, "1.tiny_model")->message, "(a CPU would do too)"));
    CHECK(contains(notes_of(tiny), "or a CPU would do"));
    CHECK_FALSE(contains(notes_of(tiny), "tight:"));

    c.policy.set("cpu_max_params", 1e5);  // 1 M parameters is now too many for a CPU
    auto no_cpu = recommend(c, request(c, "tinynet"));
    REQUIRE(finding(no_cpu, "1.tiny_model"));
    CHECK_FALSE(contains(finding(no_cpu, "1.tiny_model")->message, "CPU"));
    CHECK_FALSE(contains(notes_of(no_cpu), "CPU"));

    c.policy.set("tiny_utilisation", 0);  // nothing is too small any more
    auto busy = recommend(c, request(c, "tinynet"));
    CHECK_FALSE(finding(busy, "1.tiny_model"));
    CHECK_FALSE(contains(notes_of(busy), "too small to keep it busy"));

    c.policy.set("tight_memory_share", 0.01);  // any job that fits uses more than 1 % of the memory
    CHECK(
        contains(notes_of(recommend(c, request(c, "tinynet"))), "tight: less than 99 % of memory to spare"));
}

}  // namespace unit_test_needs_rules
