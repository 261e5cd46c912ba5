#include "cli/mpi_job.h"

#include <cstdlib>

#ifdef TRAINSCOPE_HAVE_MPI
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "analysis/job/rank_result_io.h"
#include "core/byte_reader.h"
#include "core/byte_writer.h"
#include "formats/load_profiles.h"
#endif

namespace trainscope::cli {

bool MpiLaunched() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && std::atoi(value) > 1) return true;
  }
  return false;
}

#ifndef TRAINSCOPE_HAVE_MPI

bool MpiBuilt() { return false; }
MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;
Result<AnalysedInputs> AnalyseInputsMpi(const MpiSession&, const std::vector<std::string>&,
                                        unsigned, const LoadedRules&,
                                        const analysis::AnalysisOptions&) {
  return InternalError("this trainscope was built without MPI\nhint: install libopenmpi-dev");
}

#else

bool MpiBuilt() { return true; }

MpiSession::MpiSession() {
  int provided = 0;
  // Only the main thread calls MPI; the analysis threads never do.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

namespace {

void PutIssues(ByteWriter& out, const std::vector<model::InputIssue>& issues) {
  out.Varint(issues.size());
  for (const model::InputIssue& issue : issues) {
    out.String(issue.path);
    out.String(issue.reason);
  }
}

void GetIssues(ByteReader& in, std::vector<model::InputIssue>* issues) {
  const uint64_t n = in.Count(2, "input issues");
  for (uint64_t k = 0; k < n && in.ok(); ++k) {
    model::InputIssue issue;
    issue.path = std::string(in.String());
    issue.reason = std::string(in.String());
    issues->push_back(std::move(issue));
  }
}

// One process's share, as bytes: a fatal error, or what it loaded (each
// rank a GatheredRank), its failures and (process 0) the skipped files.
std::string Envelope(const Result<AnalysedInputs>& mine) {
  ByteWriter out;
  if (!mine.ok()) {
    out.Varint(1);
    out.Varint(static_cast<uint64_t>(mine.status().code()));
    out.String(mine.status().message());
    return out.Take();
  }
  out.Varint(0);
  out.Varint(mine->loaded);
  out.Varint(mine->results.size());
  for (const auto& [index, result] : mine->results) {
    analysis::GatheredRank rank;
    rank.index = index;
    rank.identity = mine->identities.at(index);
    rank.ok = result.ok();
    if (result.ok()) {
      rank.result = *result;
    } else {
      rank.error_code = result.status().code();
      rank.error = result.status().message();
    }
    out.String(analysis::SerializeGatheredRank(rank));
  }
  PutIssues(out, mine->failed);
  PutIssues(out, mine->skipped);
  return out.Take();
}

// Merges one process's envelope into |job| (process 0).
Status Merge(std::string_view bytes, int process, AnalysedInputs* job) {
  ByteReader in(bytes);
  if (in.Varint() != 0) {
    const auto code = static_cast<StatusCode>(in.Varint());
    const std::string message(in.String());
    if (!in.ok()) return InternalError(fmt::format("MPI process {}: {}", process, in.error()));
    return Status(code, message);
  }
  job->loaded += in.Varint();
  const uint64_t ranks = in.Count(1, "ranks");
  for (uint64_t k = 0; k < ranks && in.ok(); ++k) {
    TS_ASSIGN_OR_RETURN(analysis::GatheredRank rank,
                        analysis::DeserializeGatheredRank(in.String()));
    job->identities.emplace(rank.index, std::move(rank.identity));
    if (rank.ok) {
      job->results.emplace(rank.index, std::move(rank.result));
    } else {
      job->results.emplace(rank.index, Status(rank.error_code, std::move(rank.error)));
    }
  }
  GetIssues(in, &job->failed);
  GetIssues(in, &job->skipped);
  if (!in.ok()) return InternalError(fmt::format("MPI process {}: {}", process, in.error()));
  return Status::Ok();
}

}  // namespace

Result<AnalysedInputs> AnalyseInputsMpi(const MpiSession& session,
                                        const std::vector<std::string>& paths, unsigned threads,
                                        const LoadedRules& rules,
                                        const analysis::AnalysisOptions& options) {
  const formats::ProfileShard shard{static_cast<size_t>(session.rank()),
                                    static_cast<size_t>(session.size())};
  const Result<AnalysedInputs> mine = AnalyseInputs(paths, threads, rules, options, shard);
  // Sent in blocks of kBlock bytes (an MPI datatype), so that MPI_Gatherv's
  // int counts and displacements reach 2^31 blocks (2 TiB) rather than 2 GiB.
  // Each share is padded to whole blocks; its own length comes first.
  constexpr int kBlock = 4096;
  std::string bytes = Envelope(mine);
  const uint64_t length = bytes.size();
  bytes.insert(0, reinterpret_cast<const char*>(&length), sizeof length);
  bytes.resize((bytes.size() + kBlock - 1) / kBlock * kBlock, '\0');
  const uint64_t blocks64 = bytes.size() / kBlock;
  if (blocks64 > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    MPI_Abort(MPI_COMM_WORLD, 1);  // one process's share above 8 TiB
  }
  MPI_Datatype block;
  MPI_Type_contiguous(kBlock, MPI_CHAR, &block);
  MPI_Type_commit(&block);
  const int blocks = static_cast<int>(blocks64);
  const bool root = session.rank() == 0;
  std::vector<int> sizes(root ? session.size() : 0);
  MPI_Gather(&blocks, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(sizes.size(), 0);
  int64_t total = 0;
  for (size_t p = 0; p < sizes.size(); ++p) {
    offsets[p] = static_cast<int>(std::min<int64_t>(total, std::numeric_limits<int>::max()));
    total += sizes[p];
  }
  const bool too_large = root && total > std::numeric_limits<int>::max();
  std::string all(root && !too_large ? static_cast<size_t>(total) * kBlock : 0, '\0');
  // Every process takes part in the collective, even when the root cannot
  // take the bytes (it then sends nothing and reports).
  std::vector<int> counts = sizes;
  if (too_large) std::fill(counts.begin(), counts.end(), 0);
  const int send = too_large ? 0 : blocks;
  int proceed = too_large ? 0 : 1;
  MPI_Bcast(&proceed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gatherv(bytes.data(), proceed != 0 ? send : 0, block, all.data(), counts.data(),
              offsets.data(), block, 0, MPI_COMM_WORLD);
  MPI_Type_free(&block);
  if (too_large) {
    return InternalError(
        fmt::format("MPI: the gathered results are {} blocks of {} bytes, above MPI_Gatherv's "
                    "2^31\nhint: see docs/mpi.md, \"Limits\"",
                    total, kBlock));
  }
  if (!root) return AnalysedInputs{};
  AnalysedInputs job;
  for (size_t p = 0; p < sizes.size(); ++p) {
    const std::string_view share = std::string_view(all).substr(
        static_cast<size_t>(offsets[p]) * kBlock, static_cast<size_t>(sizes[p]) * kBlock);
    uint64_t share_length = 0;
    std::memcpy(&share_length, share.data(), sizeof share_length);
    if (share_length > share.size() - sizeof share_length) {
      return InternalError(fmt::format("MPI process {}: a share of {} bytes claims {}", p,
                                       share.size(), share_length));
    }
    TS_RETURN_IF_ERROR(
        Merge(share.substr(sizeof share_length, share_length), static_cast<int>(p), &job));
  }
  if (job.loaded == 0) {
    std::string failed;
    for (const model::InputIssue& issue : job.failed) {
      failed +=
          fmt::format("\n  {}: {}", issue.path, issue.reason.substr(0, issue.reason.find('\n')));
    }
    return InvalidInput(
        fmt::format("no rank could be loaded by any of the {} MPI processes{}\nhint: "
                    "check the paths (trainscope analyze without mpirun says more)",
                    session.size(), failed));
  }
  return job;
}

#endif

}  // namespace trainscope::cli
