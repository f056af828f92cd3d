// The networks of the catalog: what joins the nodes of a cloud instance family (catalog section
// `instance_networks`, docs/catalog.md).
#pragma once

#include <string>
#include <string_view>

#include "gpuadvise/base/names.hpp"

namespace gpuadvise {

// What kind of network joins the nodes. `rdma` is a provider's RDMA without a named fabric.
enum class NetworkKind { efa, infiniband, roce, rdma, ethernet };
inline constexpr NameTable<NetworkKind, 5> kNetworkKindNames{{{{NetworkKind::efa, "EFA"},
                                                               {NetworkKind::infiniband, "InfiniBand"},
                                                               {NetworkKind::roce, "RoCE"},
                                                               {NetworkKind::rdma, "RDMA"},
                                                               {NetworkKind::ethernet, "Ethernet"}}}};
inline std::string_view to_string(NetworkKind k) { return kNetworkKindNames.name(k); }
// EFA, InfiniBand, RoCE and plain RDMA bypass the kernel's TCP stack; Ethernet (TCP, incl. GPUDirect-TCPX) does not.
constexpr bool is_rdma(NetworkKind k) { return k != NetworkKind::ethernet; }

// The per-node network of a cloud instance family (catalog section `instance_networks`): offers
// whose provider matches and whose instance type starts with `instance_type` (longest prefix wins).
struct InstanceNetwork {
    std::string provider;
    std::string instance_type;  // a prefix, e.g. "p5.48xlarge", "a2-"
    double gbps = 0;            // Gbit/s per node
    NetworkKind kind = NetworkKind::ethernet;
    std::string source;

    bool operator==(const InstanceNetwork&) const = default;
};

}  // namespace gpuadvise
