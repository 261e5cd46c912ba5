// CommunicationData: what communication.json and communication_matrix.json
// say about one rank's collectives (Ascend only; empty for GPU traces).
//
// Small by construction (one record per HCCL op and per matrix link, a few
// hundred per step), so plain structs with strings are fine here.
//
// Numbers: 0 when the file does not report them; NaN when it reports a value
// that cannot be a measurement (infinite, NaN, negative, out of range, a
// bandwidth over a transit time of 0): unknown, never evidence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainscope::model {

// One "Communication Bandwidth Info" entry (per transport type) of an op.
struct CommTransportBandwidth {
  std::string transport;  // RDMA, HCCS, PCIE, SDMA, SIO
  double size_mb = 0;
  double time_ms = 0;
  double bandwidth_gbps = 0;
  double large_packet_ratio = 0;
};

// One op of communication.json ("<opName>@<groupHash>" under a step).
struct CommOpRecord {
  std::string name;        // op name without "@<groupHash>", e.g. hcom_allReduce__586_0_1
  std::string group_hash;  // decimal text of the group hash ("" when absent)
  int32_t step = -1;       // from "step<N>"; -1 for "step" (no step info)
  bool p2p = false;        // listed under "p2p"
  double start_us = 0;     // Start Timestamp(us): a double, coarser than trace times
  double elapse_ms = 0;
  double transit_ms = 0;
  double wait_ms = 0;
  double sync_ms = 0;
  double idle_ms = 0;
  double wait_ratio = 0;
  double sync_ratio = 0;
  std::vector<CommTransportBandwidth> bandwidth;  // transports with a non-zero size only

  // Bytes this rank moved over its links for the op: the largest transport
  // size (SDMA aggregates the intra-node links, so summing would double
  // count). Not the message size (CommOpMessage).
  double TransitSizeMb() const {
    double best = 0;
    for (const CommTransportBandwidth& b : bandwidth) best = b.size_mb > best ? b.size_mb : best;
    return best;
  }
};

// One link of communication_matrix.json.
struct CommLinkRecord {
  int32_t step = -1;
  bool p2p = false;
  std::string op_type;    // <type> of "<type>-<stat>@<hash>": allreduce, reduce, ...
  std::string statistic;  // top1, middle, bottom1..3, total
  std::string group_hash;
  int32_t src = -1;  // group-local ranks
  int32_t dst = -1;
  std::string transport;  // LOCAL, HCCS, PCIE, RDMA, SIO
  double size_mb = 0;
  double time_ms = 0;
  double bandwidth_gbps = 0;
  std::string op_name;  // absent for "total"
};

// What HCCL records of an op itself: the op-level event's args in
// trace_view.json ("count", "data_type", "rank_size" on the Communication /
// HCCL process's group thread) or COMMUNICATION_OP's columns in the .db
// export (count, dataType, groupName). The message size and the group come
// from here, never from the transit sizes above (those are what one rank
// moved over its links: for an all-reduce of S bytes over n ranks about
// 2(n-1)/n x S).
struct CommOpMessage {
  std::string name;        // hcom_allReduce__586_0_1
  std::string group_name;  // HCCL's group name (.db groupName); "" when not recorded
  std::string data_type;   // FP32, BFP16, ... as HCCL writes it; "" when not recorded
  int64_t count = -1;      // elements, as passed to HCCL (-1: not recorded)
  int32_t rank_size = -1;  // the group's size (newer CANN's "rank_size"; -1: not recorded)
};

struct CommunicationData {
  bool ops_present = false;     // communication.json was read
  bool matrix_present = false;  // communication_matrix.json was read
  std::vector<CommOpRecord> ops;
  std::vector<CommLinkRecord> links;
  std::vector<CommOpMessage> messages;  // one per op-level event that records its message
  // What the readers had to treat as unknown (one line per file), for the
  // rank's warnings.
  std::vector<std::string> notes;
};

}  // namespace trainscope::model
