// Columnar tables generated from one column list.
//
// A table of the model (DeviceEvents, HostOps) declares its
// columns once, as an X-macro list of (type, name, default):
//
//   #define TS_HOST_OP_COLUMNS(X) X(int64_t, pid, 0) X(int64_t, tid, 0) ...
//   TS_COLUMNAR_TABLE(HostOp, HostOpColumns, TS_HOST_OP_COLUMNS, start_ns)
//
// which declares the row struct (one field per column, with its default) and
// a class with one std::vector per column plus the boilerplate that used to
// be written per table and per column: size(), capacity(), Reserve, Append, Row and
// Permute (and Set / ForEachColumn for readers that fill sized columns in
// parallel). Adding a column is one line in the list; a column can no longer be
// forgotten in one of the places that go over every column. The last argument names the column
// whose length is the row count.
//
// A column whose rows nearly always hold its default is declared with type
// Sparse<T> (SparseColumn below): it stores nothing until a row holds another
// value; the row struct's field is a plain T.
//
// The concrete table derives from the generated class and adds what is its
// own (end_ns, indexes kept up to date by hiding Append/Permute). Columns are
// plain public vectors (sparse columns read by index as they do): analyses
// scan one or two of them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace trainscope::model::columnar {

// The room a permutation gathers a column into before copying it back, kept
// for the table's next column. A column reordered into a new vector of its
// own was a new block for every column, its pages faulted in one by one
// (182 MB over the 12 columns of the x28 benchmark trace's 2.8 M host ops),
// where one spare of the widest column is 23 MB (docs/benchmarks.md, "The
// read's last steps").
class PermuteSpare {
 public:
  std::byte* Room(size_t bytes) {
    if (bytes > size_) {
      block_.reset();  // freed before the larger block is taken
      block_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
      size_ = bytes;
    }
    return block_.get();
  }

 private:
  std::unique_ptr<std::byte[]> block_;
  size_t size_ = 0;
};

// Reorders |column| by |order| (order[k] = old index of new row k; as many
// as the column's rows) in place, through |spare|.
template <typename T>
void Permute(std::vector<T>* column, const std::vector<uint32_t>& order, PermuteSpare* spare) {
  static_assert(std::is_trivially_copyable_v<T>, "columns hold plain values");
  const size_t rows = order.size();
  if (rows == 0) {
    column->clear();  // an empty table's columns have no data to copy (null pointers)
    return;
  }
  std::byte* room = spare->Room(rows * sizeof(T));
  const T* in = column->data();
  for (size_t k = 0; k < rows; ++k) std::memcpy(room + k * sizeof(T), in + order[k], sizeof(T));
  column->resize(rows);
  std::memcpy(column->data(), room, rows * sizeof(T));
}

// A column whose rows nearly always hold one value (|absent|): a host op's
// call-stack frame and record_shapes text, empty in a trace recorded without
// with_stack or record_shapes. It stores nothing until a row holds another
// value, then every row: a table of millions of rows does not write (and
// fault in, and reorder) megabytes of the same value. Reads by index, as a
// vector's, return the value (not a reference).
template <typename T>
class SparseColumn {
 public:
  explicit SparseColumn(T absent = T{}) : absent_(absent) {}

  size_t size() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // Whether any row was ever given another value than |absent| (then
  // values() holds every row).
  bool stored() const { return stored_; }
  const std::vector<T>& values() const { return values_; }
  // The stored rows for a reader that moves rows within the column or
  // returns its spare capacity (it keeps their count); null when none is
  // stored.
  std::vector<T>* stored_values() { return stored_ ? &values_ : nullptr; }
  T absent() const { return absent_; }

  T operator[](size_t index) const { return stored_ ? values_[index] : absent_; }

  void reserve(size_t rows) {
    reserved_ = rows;
    if (stored_) values_.reserve(rows);
  }
  void push_back(T value) {
    if (!stored_ && value != absent_) Store();
    if (stored_) values_.push_back(value);
    ++rows_;
  }
  void resize(size_t rows) {
    rows_ = rows;
    if (stored_) values_.resize(rows, absent_);
  }
  void clear() {
    rows_ = 0;
    values_.clear();
  }
  // Appends every row of |more|.
  void Extend(const SparseColumn& more) {
    if (!more.stored_) {
      resize(rows_ + more.rows_);
      return;
    }
    if (!stored_) Store();
    values_.insert(values_.end(), more.values_.begin(), more.values_.end());
    rows_ += more.rows_;
  }
  // Stores every row from now on, as the first other value would: a reader
  // about to set rows from several threads at once (Set would store the
  // column on whichever thread first writes another value).
  void StoreEveryRow() {
    if (!stored_) Store();
  }
  // Row |index| (< size()) set to |value|.
  void Set(size_t index, T value) {
    if (!stored_ && value == absent_) return;
    if (!stored_) Store();
    values_[index] = value;
  }

 private:
  template <typename U>
  friend void Permute(SparseColumn<U>* column, const std::vector<uint32_t>& order,
                      PermuteSpare* spare);

  // From here on every row is stored: the rows so far hold |absent|.
  void Store() {
    values_.reserve(std::max(reserved_, rows_ + 1));
    values_.assign(rows_, absent_);
    stored_ = true;
  }

  std::vector<T> values_;
  size_t rows_ = 0;
  size_t reserved_ = 0;
  T absent_;
  bool stored_ = false;
};

template <typename T>
void Permute(SparseColumn<T>* column, const std::vector<uint32_t>& order, PermuteSpare* spare) {
  if (column->stored_) Permute(&column->values_, order, spare);
  column->rows_ = order.size();
}

// A column list names a sparse column's type Sparse<T> (its rows' type is T).
template <typename T>
struct Sparse {};

template <typename T>
struct ColumnOf {
  using Value = T;
  using Storage = std::vector<T>;
  static Storage Empty(T /*absent*/) { return {}; }
};
template <typename T>
struct ColumnOf<Sparse<T>> {
  using Value = T;
  using Storage = SparseColumn<T>;
  static Storage Empty(T absent) { return Storage(absent); }
};
template <typename T>
using ValueOf = typename ColumnOf<T>::Value;
template <typename T>
using StorageOf = typename ColumnOf<T>::Storage;

// Appends every row of |more| to |column|.
template <typename T>
void Extend(std::vector<T>* column, const std::vector<T>& more) {
  column->insert(column->end(), more.begin(), more.end());
}
template <typename T>
void Extend(SparseColumn<T>* column, const SparseColumn<T>& more) {
  column->Extend(more);
}

// The vector that holds |column|'s rows, for moving rows within it or
// returning its spare capacity (keeping their count); null for a sparse
// column that stores none (every row holds its absent value).
template <typename T>
std::vector<T>* StoredRows(std::vector<T>* column) {
  return column;
}
template <typename T>
std::vector<T>* StoredRows(SparseColumn<T>* column) {
  return column->stored_values();
}

template <typename T>
void SetRow(std::vector<T>* column, size_t index, T value) {
  (*column)[index] = value;
}
template <typename T>
void SetRow(SparseColumn<T>* column, size_t index, T value) {
  column->Set(index, value);
}

}  // namespace trainscope::model::columnar

// Column names and types cannot be parenthesised: they are declarators.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TS_COLUMNAR_ROW_FIELD_(type, name, init) \
  ::trainscope::model::columnar::ValueOf<type> name = init;
#define TS_COLUMNAR_VECTOR_(type, name, init)           \
  ::trainscope::model::columnar::StorageOf<type> name = \
      ::trainscope::model::columnar::ColumnOf<type>::Empty(init);
#define TS_COLUMNAR_RESERVE_(type, name, init) name.reserve(rows);
#define TS_COLUMNAR_APPEND_(type, name, init) name.push_back(row.name);
#define TS_COLUMNAR_GET_(type, name, init) row.name = name[index];
#define TS_COLUMNAR_SET_(type, name, init) \
  ::trainscope::model::columnar::SetRow(&name, index, row.name);
#define TS_COLUMNAR_VISIT_(type, name, init) visit(name);
#define TS_COLUMNAR_PERMUTE_(type, name, init) \
  ::trainscope::model::columnar::Permute(&name, order, &spare);
#define TS_COLUMNAR_WIDTH_(type, name, init) sizeof(::trainscope::model::columnar::ValueOf<type>),

// Declares `struct RowType` and `class ColumnsType` from |COLUMNS|.
// clang-format off
#define TS_COLUMNAR_TABLE(RowType, ColumnsType, COLUMNS, size_column)                     \
  struct RowType {                                                                        \
    COLUMNS(TS_COLUMNAR_ROW_FIELD_)                                                       \
  };                                                                                      \
  class ColumnsType {                                                                     \
   public:                                                                                \
    size_t size() const { return size_column.size(); }                                    \
    size_t capacity() const { return size_column.capacity(); }                            \
    void Reserve(size_t rows) { COLUMNS(TS_COLUMNAR_RESERVE_) }                           \
    void Append(const RowType& row) { COLUMNS(TS_COLUMNAR_APPEND_) }                      \
    RowType Row(size_t index) const {                                                     \
      RowType row;                                                                        \
      COLUMNS(TS_COLUMNAR_GET_)                                                           \
      return row;                                                                         \
    }                                                                                     \
    /* Overwrites row |index| (< size()): readers that sized the columns first. */        \
    void Set(size_t index, const RowType& row) { COLUMNS(TS_COLUMNAR_SET_) }              \
    /* Calls visit(column) for every column vector, in declaration order. */              \
    template <typename Visit>                                                             \
    void ForEachColumn(Visit&& visit) { COLUMNS(TS_COLUMNAR_VISIT_) }                     \
    /* Reorders every column: order[k] = old index of new row k (a permutation of all */ \
    /* rows), each through one spare block sized to the widest column. */                  \
    void Permute(const std::vector<uint32_t>& order) {                                    \
      ::trainscope::model::columnar::PermuteSpare spare;                                  \
      spare.Room(order.size() * std::max({COLUMNS(TS_COLUMNAR_WIDTH_) size_t{0}}));       \
      COLUMNS(TS_COLUMNAR_PERMUTE_)                                                       \
    }                                                                                     \
    COLUMNS(TS_COLUMNAR_VECTOR_)                                                          \
  };
// NOLINTEND(bugprone-macro-parentheses)
// clang-format on
