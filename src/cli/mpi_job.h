// The MPI mode of `analyze` (docs/mpi.md): under mpirun / srun every process
// loads and analyses its contiguous block of the job's ranks with all its
// cores (formats::ProfileShard), serialises each rank's result
// (analysis::GatheredRank) and sends it to process 0, which combines the job
// and writes the reports exactly as a single process would.
//
// Built only where CMake finds MPI (TRAINSCOPE_HAVE_MPI); elsewhere
// MpiLaunched() is false and analyze runs as one process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/job_loader.h"
#include "core/status.h"

namespace trainscope::cli {

// Whether this process was started by an MPI launcher (OpenMPI's or PMI's
// environment) with more than one process.
bool MpiLaunched();

// Whether this binary has the MPI mode at all.
bool MpiBuilt();

// MPI_Init on construction, MPI_Finalize on destruction; one per process.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Every process: its block of |paths|' ranks analysed and sent to process 0.
// On process 0: the whole job's AnalysedInputs, or the first error of any
// process; on the others: nothing (an empty AnalysedInputs).
Result<AnalysedInputs> AnalyseInputsMpi(const MpiSession& session,
                                        const std::vector<std::string>& paths, unsigned threads,
                                        const LoadedRules& rules,
                                        const analysis::AnalysisOptions& options);

}  // namespace trainscope::cli
