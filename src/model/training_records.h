// TrainingRecords: a log's training records, stored by column in blocks
// (docs/hostile-input.md, "Training logs"). A log of millions of lines keeps
// a record per training line, so the record store is the reader's memory.
// Per block of kBlock records each field is a column:
//   - counts (step, line, byte offset, rank, the ordinal flag) as the
//     residuals from a straight line through the block's first and last
//     value, packed in the fewest whole bytes that hold their range (0
//     bytes for a step that counts by a fixed interval);
//   - optional fields with a presence bitmap when some records print them
//     and nothing when none do;
//   - numbers exactly (IEEE bits, never rounded): indices into the
//     block's distinct values when it has at most 255 of them, else 8 bytes.
// Every record reads back exactly as it was stored. The last records (the
// open block) are kept as plain records: the reader amends the last one.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/index_iterator.h"
#include "model/training_record.h"

namespace trainscope::model {

class TrainingRecords {
 public:
  static constexpr size_t kBlock = 4096;

  size_t size() const { return sealed_ + open_.size(); }
  bool empty() const { return size() == 0; }
  void clear();
  void push_back(const TrainingRecord& r);

  // The record at |i|, decoded.
  TrainingRecord operator[](size_t i) const;
  TrainingRecord front() const { return (*this)[0]; }
  // The last kAmendable records are never packed: they can be amended in
  // place (a DeepSpeed overflow or latency line amends the record before the
  // engine lines that follow it).
  static constexpr size_t kAmendable = 256;
  TrainingRecord& back() { return open_.back(); }
  // The record at |i| to amend, or nullptr once it is packed (more than
  // kAmendable records ago).
  TrainingRecord* amendable(size_t i) { return i >= sealed_ ? &open_[i - sealed_] : nullptr; }
  const TrainingRecord& back() const { return open_.back(); }

  // One field of the record at |i|, without decoding the others.
  int64_t step(size_t i) const;
  int64_t line(size_t i) const;
  bool step_is_ordinal(size_t i) const;
  int32_t rank(size_t i) const;
  uint8_t engine(size_t i) const;
  MaybeDouble get(size_t i, MaybeDouble TrainingRecord::*field) const;
  MaybeInt get(size_t i, MaybeInt TrainingRecord::*field) const;

  // Calls |f(i, value)| for each record |i| that has |field|, in order. A
  // block's column is decoded in one pass (get() looks the column and the
  // record's presence bit up for each record).
  template <typename F>
  void ForEachPresent(MaybeDouble TrainingRecord::*field, F&& f) const {
    ForEachPresentBits(ColumnOf(field), field,
                       [&](size_t i, uint64_t bits) { f(i, std::bit_cast<double>(bits)); });
  }
  template <typename F>
  void ForEachPresent(MaybeInt TrainingRecord::*field, F&& f) const {
    ForEachPresentBits(ColumnOf(field), field,
                       [&](size_t i, uint64_t bits) { f(i, static_cast<int64_t>(bits)); });
  }

  // Calls |f(i, value)| for every record |i|'s |field| of those every
  // record has (step, step_is_ordinal, rank, engine, offset, line), a
  // block's column decoded in one pass, as ForEachPresent (step(i) and the
  // like look the value up for one record).
  template <typename T, typename F>
  void ForEachWhole(T TrainingRecord::*field, F&& f) const {
    const Column c = WholeColumnOf(field);
    std::vector<uint32_t> at(blocks_.empty() ? 0 : kBlock);
    std::vector<uint64_t> bits(at.size());
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const size_t n = DecodeColumn(b, c, at.data(), bits.data());
      for (size_t k = 0; k < n; ++k) f(b * kBlock + at[k], FromBits<T>(bits[k]));
    }
    for (size_t k = 0; k < open_.size(); ++k) f(sealed_ + k, open_[k].*field);
  }

  // Calls |f| with each record in order, releasing each block once read:
  // the records are moved elsewhere without two copies of the log at once.
  // Leaves the store empty.
  template <typename F>
  void Drain(F&& f) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      for (size_t k = 0; k < blocks_[b].count; ++k) f(Decode(blocks_[b], k));
      blocks_[b] = Block();
    }
    for (const TrainingRecord& r : open_) f(r);
    clear();
  }

  // Bytes held by the store (the blocks' buffers and the open records).
  size_t MemoryBytes() const;

  using const_iterator = IndexIterator<TrainingRecords, TrainingRecord>;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  // The packed columns, in TrainingRecord's order (exposed for the codec).
  enum Column : uint8_t {
    kStep,
    kOrdinal,
    kRank,
    kEngine,
    kLoss,
    kGradNorm,
    kStepTimeMs,
    kTokensPerS,
    kTflops,
    kMfuPct,
    kLearningRate,
    kSkipped,
    kNanIterations,
    kWallNs,
    kOffset,
    kLine,
    kColumns
  };

 private:
  // Present values of one column in a block: value k (the k-th present
  // record) is base + slope * k + the |width|-byte residual at |at| (mod
  // 2^64), or, for numbers with a dictionary, the dictionary entry it indexes.
  struct Packed {
    uint64_t base = 0;
    uint64_t slope = 0;
    uint32_t at = 0;         // byte offset in Block::bytes
    uint32_t dict = 0;       // numbers: first entry in Block::dict
    uint16_t dict_size = 0;  // 0: the residuals are the IEEE bits
    uint8_t width = 0;       // bytes per residual, 0 to 8
    uint8_t presence = 0;    // kAll, kNone or kSome
    uint32_t bits = 0;       // kSome: first word of the bitmap in Block::bits
  };
  struct Block {
    size_t count = 0;
    Packed columns[kColumns];
    std::vector<uint8_t> bytes;   // residuals (8 bytes of slack at the end)
    std::vector<uint64_t> bits;   // presence bitmaps (kBlock / 64 words each)
    std::vector<uint16_t> ranks;  // per bitmap word: set bits before it
    std::vector<double> dict;
  };

  static Column ColumnOf(MaybeDouble TrainingRecord::*field);
  static Column ColumnOf(MaybeInt TrainingRecord::*field);
  static Column WholeColumnOf(int64_t TrainingRecord::*field);  // step, offset or line
  static Column WholeColumnOf(bool TrainingRecord::* /*step_is_ordinal*/) { return kOrdinal; }
  static Column WholeColumnOf(int32_t TrainingRecord::* /*rank*/) { return kRank; }
  static Column WholeColumnOf(uint8_t TrainingRecord::* /*engine*/) { return kEngine; }
  // A whole-record field from its stored bits: counts are stored as int64
  // (a rank of -1 included), flags as 0/1.
  template <typename T>
  static T FromBits(uint64_t bits) {
    if constexpr (std::is_same_v<T, bool>) {
      return bits != 0;
    } else {
      return static_cast<T>(static_cast<int64_t>(bits));
    }
  }
  // Block |b|'s present values of column |c|: their records' places in the
  // block into |at|, their bits into |bits| (kBlock entries each); returns
  // how many.
  size_t DecodeColumn(size_t b, Column c, uint32_t* at, uint64_t* bits) const;
  template <typename Field, typename F>
  void ForEachPresentBits(Column c, Field TrainingRecord::*field, F&& f) const {
    std::vector<uint32_t> at(blocks_.empty() ? 0 : kBlock);
    std::vector<uint64_t> bits(at.size());
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const size_t n = DecodeColumn(b, c, at.data(), bits.data());
      for (size_t k = 0; k < n; ++k) f(b * kBlock + at[k], bits[k]);
    }
    for (size_t k = 0; k < open_.size(); ++k) {
      if (const auto& v = open_[k].*field) f(sealed_ + k, Bits(*v));
    }
  }
  static uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }
  static uint64_t Bits(int64_t v) { return static_cast<uint64_t>(v); }

  void Seal();
  static TrainingRecord Decode(const Block& b, size_t k);
  // Record |i|'s |field|, stored whole (one value a record).
  template <typename T>
  T Whole(size_t i, T TrainingRecord::*field) const;
  static bool Present(const Block& b, Column c, size_t k, size_t* index);
  static uint64_t Value(const Block& b, Column c, size_t index);
  // Values [0, n) of column |c| into |out|, as Value() gives each.
  static void DecodeValues(const Block& b, Column c, size_t n, uint64_t* out);

  std::vector<Block> blocks_;
  size_t sealed_ = 0;  // records in blocks_
  std::vector<TrainingRecord> open_;
};

}  // namespace trainscope::model
