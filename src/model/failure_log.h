// What a failed job's logs say (docs/triage.md), format-free: the failure
// lines of NCCL / c10d logs, torchrun error files, scheduler messages and
// Ascend CANN plogs and device logs, each with where it was read and the
// clock it carried; the HCCL identities (rank, device) and link rows.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/flight_recorder.h"
#include "model/training_record.h"

namespace trainscope::model {

enum class FailureKind {
  kWatchdogTimeout,  // c10d watchdog: a collective ran past its timeout
  kCollectiveError,  // NCCL WARN, ncclInternalError / ncclSystemError, HCCL op error
  kDeviceError,      // CUDA error, Xid, a device task that failed
  kOutOfMemory,
  kSegfault,
  kSignal,          // died from / received a signal (SIGTERM, SIGKILL, SIGABRT)
  kTimeLimit,       // the scheduler's time limit
  kCancelled,       // the scheduler cancelled the job
  kChildFailed,     // torchrun ChildFailedError, error.json
  kConnectTimeout,  // HCCL socket establish timeout, NCCL connect failures
  kLinkError,       // a LINK_ERROR_INFO row, Transport init error
  kNotifyTimeout,   // AI CPU notify wait timeout
  kSdmaError,       // SDMA task exception
  kDispatchTimeout  // torch_npu: work dispatch timeout
};

std::string_view FailureKindName(FailureKind kind);

struct FailureEvent {
  FailureKind kind = FailureKind::kCollectiveError;
  std::optional<int64_t> rank;     // the global rank the line names
  std::optional<int64_t> time_ns;  // the line's clock (local wall time), when it has one
  std::string clock;               // that clock as written
  int64_t line = 0;                // 1-based
  std::string text;                // the line (cut to 400 bytes)
  // The collective a watchdog / HCCL line names.
  std::string op;              // BROADCAST, ALLREDUCE, HcomAllGather
  std::optional<int64_t> seq;  // SeqNum / seq_num
  std::optional<int64_t> pg;   // [PG N ...]
  std::optional<int64_t> numel_in, numel_out, timeout_ms, ran_ms;
  std::optional<int64_t> last_enqueued, last_completed;  // "Timeout at NCCL work: ..."
  std::optional<int64_t> signal;
  std::optional<int64_t> remote_rank;  // the peer a device task waited for
};

// One row of an HCCL LINK_ERROR_INFO table, or a socket timeout naming both
// ends: |src_rank| waited for |dest_rank|.
struct LinkRecord {
  std::string src_ip, dest_ip, role, status;
  std::optional<int64_t> src_rank, dest_rank;
  int64_t line = 0;
  std::string clock;
  std::optional<int64_t> time_ns;
};

// HCCL's SetupAgent / hcclCommInitInfo line: who this process is.
struct HcclIdentity {
  std::optional<int64_t> rank, rank_num, device;
  std::string device_ip, server;
};

// What one rank's lines in a log said last (c10d logs interleave ranks).
struct RankTrail {
  int64_t last_line = 0;
  std::string last_text;
};

struct FailureLog {
  std::string path;
  std::string format;             // "c10d log", "plog", "device log", "error.json"
  std::string worker;             // "worker-0": the path's worker-N folder
  std::optional<int64_t> device;  // the path's device-N folder
  std::optional<int64_t> pid;     // plog-PID_..., device-PID_...
  std::optional<int64_t> world_size;
  std::vector<FailureEvent> events;
  std::vector<LinkRecord> links;
  std::optional<HcclIdentity> identity;
  std::map<int64_t, RankTrail> ranks;  // ranks the log speaks for
  int64_t lines = 0;
  bool finished = false;  // a line saying the run completed ("Total run time", "training done")
};

// A file of the inputs that was not read, with the reason.
struct NotRead {
  std::string path, reason;
};

// How far a training log (one `health` reads, formats/log) got: per rank
// its lines name, the last training record in file order. Key -1: the
// records that name no rank (one log per rank, or the job's one log).
struct TrainingProgress {
  std::string path;
  std::string format;  // LogFormatName: "megatron", "torchtitan", ...
  int64_t records = 0;
  std::map<int32_t, TrainingRecord> last_of_rank;
};

// Everything read for one triage.
struct TriageInputs {
  std::vector<FlightRecorderDump> dumps;
  std::vector<FailureLog> logs;
  std::vector<TrainingProgress> training;
  std::vector<NotRead> not_read;
  int64_t files_seen = 0;
};

}  // namespace trainscope::model
