// Lengths of time covered by lanes of device work (compute, communication,
// copies...) and by their combinations, in one pass over intervals given in
// start order, without keeping them.
//
// Why: a step's time budget asks for unions (|compute|, busy time) and
// differences (communication not hidden by compute). Built as interval
// lists, the union of one lane has one piece per kernel on a single stream
// (kernels rarely touch): 16 bytes per kernel and lane, tens of MB for a
// step of a million kernels, held while the other steps are analysed. The
// sweep keeps, per lane, only how far its work covers so far: in start
// order a lane is busy at t exactly when one of its intervals that started
// by t ends after t. Each stretch of time is booked to the set of lanes busy
// in it; every union length and difference is a sum over those sets.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/row_set.h"

namespace trainscope::analysis {

class CoverageSweep {
 public:
  static constexpr int kMaxLanes = 6;
  using Lanes = uint8_t;  // bit k = lane k

  static constexpr Lanes Lane(int k) { return static_cast<Lanes>(1u << k); }

  // An interval [start, end) of work in every lane of |lanes|. Intervals come
  // in start order (equal starts in any order); an empty one covers nothing.
  // Returns false, and takes nothing, for one that starts before the last.
  bool Add(Lanes lanes, int64_t start, int64_t end);

  // Time where at least one lane of |any_of| is busy and no lane of
  // |none_of| is, over everything added so far.
  int64_t Covered(Lanes any_of, Lanes none_of = 0) const;

 private:
  using Times = std::array<int64_t, 1u << kMaxLanes>;
  using Until = std::array<int64_t, kMaxLanes>;
  // Books [from, to) to the sets of lanes busy in it; |used|: the lanes
  // that ever had work (the others are idle throughout).
  static void Book(int64_t from, int64_t to, Lanes used, const Until& busy_until, Times* time_with);

  // Per lane, the end of its work so far (INT64_MIN: none yet).
  Until busy_until_{INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
  // Time during which exactly this set of lanes was busy, up to now_.
  Times time_with_{};
  // The lanes given work so far: a step's sweep mostly uses two of its six
  // (compute and one kind of communication), and every interval's booking
  // visits only these.
  Lanes used_ = 0;
  // The latest end of any lane's work: at or before the next start, every
  // lane is idle from then on, and booking up to that start is one pass.
  int64_t busy_until_latest_ = INT64_MIN;
  int64_t now_ = INT64_MIN;  // the last start
  bool started_ = false;
};

// The rows of |rows| in order of |start_ns|: |rows| itself when it already is
// (a device table's rows are kept by start), else a sorted copy in |storage|.
model::RowSet RowsByStart(std::span<const int64_t> start_ns, model::RowSet rows,
                          std::vector<uint32_t>* storage);

}  // namespace trainscope::analysis
