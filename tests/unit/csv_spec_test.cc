// The spec-driven CSV binder: aliases, required columns, units, and what a
// bad cell costs, each accounted under its catalogue key.
#include "formats/csv/csv_spec.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "formats/ascend/csv_specs.h"

namespace trainscope::formats {
namespace {

constexpr ColumnSpec kColumns[] = {
    {"start time",
     {"Start Time(us)", "Task Start Time(us)"},
     true,
     ColumnUnit::kMicros,
     OnMissing::kSkipRow,
     OnBad::kSkipRow,
     OnBad::kSkipRow},
    {"Wait Time",
     {"Wait Time(us)"},
     false,
     ColumnUnit::kMicros,
     OnMissing::kDefault,
     OnBad::kNote,
     OnBad::kNote},
    {"Count",
     {"Count"},
     false,
     ColumnUnit::kCount,
     OnMissing::kAsUnparsable,
     OnBad::kSkipRow,
     OnBad::kSkipRow},
    {"Stream ID",
     {"Stream ID", "Stream Id"},
     false,
     ColumnUnit::kInt32,
     OnMissing::kDefault,
     OnBad::kNote,
     OnBad::kIgnore},
    {"Name", {"Name", "Op Name"}, true, ColumnUnit::kText},
};
constexpr CsvSpec kSpec = {"test.csv", kColumns, "test.csv needs Start Time(us) and Name"};

enum : size_t { kStart, kWait, kCount, kStream, kName };

// Binds kSpec to |header| and reads each record of |body| into the ledger.
struct Fixture {
  std::string data;
  CsvReader reader;
  CsvRecord record;
  BoundSpec cols;
  RowLedger ledger{"test.csv"};

  Fixture(std::string header, std::string body)
      : data(header + "\n" + body), reader(data, CsvReader::ConfiguredMaxRecordBytes()) {
    Result<BoundSpec> bound = ReadSpecHeader(&reader, &record, "test.csv", kSpec);
    EXPECT_TRUE(bound.ok()) << bound.status().message();
    if (bound.ok()) cols = *bound;
  }
  bool Next() { return reader.Next(&record) && TakeRecord(record, cols.fields(), &ledger); }
};

TEST(CsvSpecTest, AliasesOfEveryHeaderGenerationBind) {
  Fixture old_header("Task Start Time(us),Op Name,stream id", "1.5,a,7");
  ASSERT_TRUE(old_header.Next());
  int64_t start = -1;
  EXPECT_EQ(ReadMicros(old_header.record, old_header.cols[kStart], &old_header.ledger, &start),
            Cell::kValue);
  EXPECT_EQ(start, 1500);  // µs -> ns, exactly
  EXPECT_EQ(ReadText(old_header.record, old_header.cols[kName]), "a");
  int32_t stream = -1;
  EXPECT_EQ(ReadInt32(old_header.record, old_header.cols[kStream], &old_header.ledger, &stream),
            Cell::kValue);
  EXPECT_EQ(stream, 7);
  EXPECT_FALSE(old_header.cols[kWait].present());
  EXPECT_EQ(ReadMicros(old_header.record, old_header.cols[kWait], &old_header.ledger, &start),
            Cell::kDefault);
}

TEST(CsvSpecTest, MissingRequiredColumnNamesFileColumnAndHint) {
  std::string data = "Name,Duration(us)\na,1\n";
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  Result<BoundSpec> bound = ReadSpecHeader(&reader, &record, "dir/test.csv", kSpec);
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bound.status().message(),
            "dir/test.csv: required column 'Start Time(us)' not found; header found: [Name, "
            "Duration(us)]\nhint: test.csv needs Start Time(us) and Name");
}

TEST(CsvSpecTest, BadCellsCostWhatTheSpecSays) {
  Fixture f("Start Time(us),Wait Time(us),Count,Stream ID,Name",
            "10,1,5,1,ok\n"          // line 2: all good
            "N/A,1,5,1,a\n"          // 3: missing start time -> skip
            "x,1,5,1,b\n"            // 4: unparsable start time -> skip
            "-1,1,5,1,c\n"           // 5: negative start time -> skip
            "10,zz,5,1,d\n"          // 6: unparsable Wait Time -> note, kept
            "10,-3,5,1,e\n"          // 7: Wait Time out of range -> note, kept
            "10,1,,1,f\n"            // 8: missing Count taken as unparsable -> skip
            "10,1,5,9999999999,g\n"  // 9: Stream ID over int32 -> note, kept
            "10,1\n");               // 10: wrong field count -> skip
  int64_t kept = 0;
  while (f.Next()) {
    int64_t start = 0, wait = 0, count = 0;
    int32_t stream = -1;
    if (ReadMicros(f.record, f.cols[kStart], &f.ledger, &start) != Cell::kValue) continue;
    ReadMicros(f.record, f.cols[kWait], &f.ledger, &wait);
    if (ReadCount(f.record, f.cols[kCount], &f.ledger, &count) == Cell::kSkipRow) continue;
    ReadInt32(f.record, f.cols[kStream], &f.ledger, &stream);
    f.ledger.Use();
    ++kept;
  }
  EXPECT_EQ(kept, 4);
  EXPECT_EQ(f.ledger.rows_read(), 9);
  EXPECT_EQ(f.ledger.rows_used(), 4);
  EXPECT_EQ(f.ledger.rows_skipped(), 5);
  EXPECT_TRUE(f.ledger.Balanced());
  EXPECT_EQ(f.ledger.skipped_by_reason(),
            (std::map<std::string, int64_t>{{"missing start time", 1},
                                            {"negative start time", 1},
                                            {"unparsable Count", 1},
                                            {"unparsable start time", 1},
                                            {"wrong field count", 1}}));
  EXPECT_EQ(f.ledger.notes_by_reason(),
            (std::map<std::string, int64_t>{{"Wait Time out of range", 1},
                                            {"unparsable Stream ID", 1},
                                            {"unparsable Wait Time", 1}}));
}

TEST(CsvSpecTest, AscendSpecsNameTheirRequiredColumnsFirstInTheirHints) {
  for (const CsvSpec* spec : ascend_csv::kAllSpecs) {
    int required = 0;
    for (const ColumnSpec& column : spec->columns) {
      EXPECT_FALSE(column.key.empty()) << spec->file;
      EXPECT_FALSE(column.aliases[0].empty()) << spec->file << " " << column.key;
      if (!column.required) continue;
      ++required;
      // The hint a missing column's error ends with names that column.
      EXPECT_NE(spec->hint.find(column.aliases[0]), std::string_view::npos)
          << spec->file << ": " << column.aliases[0];
    }
    // operator_details.csv needs only the operator's name: its stacks and
    // shapes are optional (Call Stack only with with_stack); l2_cache.csv
    // only the op name: either rate alone is worth reading.
    const bool name_only = spec == &ascend_csv::kOperatorDetails || spec == &ascend_csv::kL2Cache;
    EXPECT_GE(required, name_only ? 1 : 2) << spec->file;
  }
}

}  // namespace
}  // namespace trainscope::formats
