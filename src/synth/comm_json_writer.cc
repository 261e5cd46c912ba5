#include "synth/comm_json_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "synth/out_file.h"

namespace trainscope::synth {
namespace {

constexpr double kHccsGbps = 18.0;  // CANN's empirical HCCS / RDMA bandwidths
constexpr double kRdmaGbps = 12.5;

// Deterministic +-3% jitter without touching the schedule's PRNG streams.
double Jitter(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL ^
               (c + 1) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ULL;
  x ^= x >> 32;
  return 0.97 + 0.06 * static_cast<double>(x % 1000000) / 1e6;
}

// Up to 64 ranks every rank's matrix lists a link to every other rank.
// Beyond, the links of a ring algorithm over nodes of 8 (the rank's node
// and its two ring neighbours), so that a job of thousands of ranks does not
// write ranks^2 links.
constexpr int kFullMatrixRanks = 64;
bool Linked(int rank, int peer, int ranks) {
  if (ranks <= kFullMatrixRanks) return true;
  if (peer / 8 == rank / 8) return true;
  return peer == (rank + 8) % ranks || peer == (rank - 8 + ranks) % ranks;
}

// Matrix type names as msprof-analyze derives them (reduceScatter -> "reduce").
int TypeIndex(std::string_view name) {
  if (name.find("allReduce") != std::string_view::npos) return 0;
  if (name.find("allGather") != std::string_view::npos) return 1;
  return 2;
}
constexpr std::array<const char*, 3> kMatrixTypes = {"allreduce", "allgather", "reduce"};

// The group hash of a comm op: its layout group's, else the default job's
// fixed hash of its type (TypeIndex |type|).
std::string_view GroupHashOf(const KernelSpec& spec, int type) {
  if (!spec.group_hash.empty()) return spec.group_hash;
  return type == 0 ? kHashAllReduce : kHashFsdp;
}

// Send/receive between pipeline stages: listed under "p2p", not "collective".
bool IsSendReceive(const KernelSpec& spec) {
  return spec.name.find("SendRecv") != std::string::npos;
}

}  // namespace

CommJsonWriter::CommJsonWriter(const KernelCatalog& catalog, const SynthOptions& options, int rank)
    : catalog_(catalog), options_(options), rank_(rank) {}

void CommJsonWriter::AddStep(int step, const StepPlan& plan,
                             const std::vector<int64_t>& last_arrival_ns) {
  const int ranks = options_.ranks;
  const bool cross_node = ranks > 8;
  const char* transport = cross_node ? "RDMA" : "HCCS";
  const double nominal = cross_node ? kRdmaGbps : kHccsGbps;
  std::string ops;
  std::string p2p_ops;
  std::array<double, 3> transit_ms{};
  std::array<double, 3> size_mb{};
  for (size_t k = 0; k < plan.comm.size(); ++k) {
    const PlantedKernel& op = plan.comm[k];
    const KernelSpec& spec = catalog_.spec(op.spec);
    const int64_t arrival = k < last_arrival_ns.size() ? last_arrival_ns[k] : op.start_ns;
    const int64_t wait_ns = std::clamp<int64_t>(arrival - op.start_ns, 0, op.dur_ns);
    const double elapse = static_cast<double>(op.dur_ns) / 1e6;
    const double wait = static_cast<double>(wait_ns) / 1e6;
    const double transit = elapse - wait;
    const double bw = nominal * Jitter(rank_, step, k);
    const double mb = transit * bw;  // GB/s x ms = MB
    const int t = TypeIndex(spec.name);
    // The matrix keeps the default job's three op types; a layout's groups
    // (spec.group_hash set) are listed per op only.
    if (spec.group_hash.empty()) {
      transit_ms[t] += transit;
      size_mb[t] += mb;
    }
    const std::string_view hash = GroupHashOf(spec, t);
    std::string& section = IsSendReceive(spec) ? p2p_ops : ops;
    const double wait_ratio = wait + transit > 0 ? wait / (wait + transit) : 0;
    fmt::format_to(
        std::back_inserter(section),
        "{}\"{}{}_1@{}\": {{\"Communication Time Info\": {{\"Start Timestamp(us)\": {:.3f}, "
        "\"Elapse Time(ms)\": {:.6f}, \"Transit Time(ms)\": {:.6f}, \"Wait Time(ms)\": {:.6f}, "
        "\"Synchronization Time(ms)\": {:.6f}, \"Idle Time(ms)\": 0, \"Wait Time Ratio\": {:.4f}, "
        "\"Synchronization Time Ratio\": {:.4f}}}, \"Communication Bandwidth Info\": {{\"{}\": "
        "{{\"Transit Size(MB)\": {:.6f}, \"Transit Time(ms)\": {:.6f}, \"Bandwidth(GB/s)\": "
        "{:.4f}, "
        "\"Large Packet Ratio\": 0.0, \"Size Distribution\": {{}}}}, \"SDMA\": {{\"Transit "
        "Size(MB)\": {:.6f}, \"Transit Time(ms)\": {:.6f}, \"Bandwidth(GB/s)\": {:.4f}, \"Large "
        "Packet Ratio\": 0, \"Size Distribution\": {{}}}}}}}}",
        section.empty() ? "" : ", ", spec.name, op.seq, hash,
        static_cast<double>(op.start_ns) / 1000.0, elapse, transit, wait, wait, wait_ratio,
        wait_ratio, transport, mb, transit, bw, mb, transit, bw);
  }
  fmt::format_to(std::back_inserter(ops_),
                 "{}\"step{}\": {{\"p2p\": {{{}}}, \"collective\": {{{}}}}}",
                 ops_.empty() ? "" : ", ", step, p2p_ops, ops);

  AddMatrixStep(step, transit_ms, size_mb);
}

// Matrix: per op type the "total" record of every link from this rank.
void CommJsonWriter::AddMatrixStep(int step, const std::array<double, 3>& transit_ms,
                                   const std::array<double, 3>& size_mb) {
  const int ranks = options_.ranks;
  std::string types;
  for (int t = 0; t < 3; ++t) {
    if (transit_ms[t] <= 0) continue;
    const std::string_view hash = t == 0 ? kHashAllReduce : kHashFsdp;
    std::string links = fmt::format(
        "\"{0}-{0}\": {{\"Transport Type\": \"LOCAL\", \"Transit Size(MB)\": {1:.6f}, \"Transit "
        "Time(ms)\": {2:.6f}, \"Bandwidth(GB/s)\": {3:.4f}}}",
        rank_, size_mb[t] / 8, transit_ms[t] / 100, size_mb[t] / 8 / (transit_ms[t] / 100));
    int peers = 0;
    for (int d = 0; d < ranks; ++d) peers += d != rank_ && Linked(rank_, d, ranks) ? 1 : 0;
    for (int d = 0; d < ranks; ++d) {
      if (d == rank_ || !Linked(rank_, d, ranks)) continue;
      const bool same_node = d / 8 == rank_ / 8;
      double bw = (same_node ? kHccsGbps : kRdmaGbps) * Jitter(rank_ * 1000 + d, step, 100 + t);
      if (options_.slow_link && rank_ == options_.slow_link_src && d == options_.slow_link_dst) {
        bw *= options_.slow_link_share;
      }
      const double mb = size_mb[t] / std::max(1, peers);
      fmt::format_to(std::back_inserter(links),
                     ", \"{}-{}\": {{\"Transport Type\": \"{}\", \"Transit Size(MB)\": {:.6f}, "
                     "\"Transit Time(ms)\": {:.6f}, \"Bandwidth(GB/s)\": {:.4f}}}",
                     rank_, d, same_node ? "HCCS" : "RDMA", mb, mb / bw, bw);
    }
    fmt::format_to(std::back_inserter(types), "{}\"{}-total@{}\": {{{}}}",
                   types.empty() ? "" : ", ", kMatrixTypes[t], hash, links);
  }
  fmt::format_to(std::back_inserter(matrix_),
                 "{}\"step{}\": {{\"p2p\": {{}}, \"collective\": {{{}}}}}",
                 matrix_.empty() ? "" : ", ", step, types);
}

Status CommJsonWriter::Write(const std::string& profiler_dir) {
  TS_RETURN_IF_ERROR(WriteWholeFile(profiler_dir + "/communication.json", "{" + ops_ + "}\n"));
  return WriteWholeFile(profiler_dir + "/communication_matrix.json", "{" + matrix_ + "}\n");
}

}  // namespace trainscope::synth
