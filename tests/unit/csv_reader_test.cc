#include "formats/csv/csv_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/csv/csv_header.h"

namespace trainscope::formats {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// Reads everything; returns the good rows, and the damaged records in
// |problems| (or as a test failure when |problems| is null).
Rows ReadAll(CsvReader* reader, std::vector<int64_t>* lines = nullptr,
             std::vector<CsvRecord>* problems = nullptr) {
  Rows rows;
  CsvRecord record;
  while (reader->Next(&record)) {
    if (record.problem != CsvProblem::kNone) {
      EXPECT_TRUE(record.fields.empty());
      if (problems != nullptr) {
        problems->push_back(record);
      } else {
        ADD_FAILURE() << record.error.ToString();
      }
      continue;
    }
    rows.emplace_back(record.fields.begin(), record.fields.end());
    if (lines != nullptr) lines->push_back(record.line);
  }
  return rows;
}

Rows Parse(std::string_view data) {
  CsvReader reader(data);
  return ReadAll(&reader);
}

TEST(CsvReaderTest, PlainFieldsAndLineEnds) {
  EXPECT_EQ(Parse("a,b,c\n1,2,3\n"), (Rows{{"a", "b", "c"}, {"1", "2", "3"}}));
  EXPECT_EQ(Parse("a,b\r\n1,2\r\n"), (Rows{{"a", "b"}, {"1", "2"}}));
  EXPECT_EQ(Parse("a,b\r1,2\r"), (Rows{{"a", "b"}, {"1", "2"}}));
  EXPECT_EQ(Parse("a,b\n1,2"), (Rows{{"a", "b"}, {"1", "2"}}));  // no trailing newline
}

TEST(CsvReaderTest, EmptyFieldsAndTrailingComma) {
  EXPECT_EQ(Parse(",a,,\n"), (Rows{{"", "a", "", ""}}));
  EXPECT_EQ(Parse("a,"), (Rows{{"a", ""}}));
}

TEST(CsvReaderTest, EmptyInputAndBlankLines) {
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("\n\r\n\r").empty());
  std::vector<int64_t> lines;
  CsvReader reader("a\n\n\r\nb\n");
  EXPECT_EQ(ReadAll(&reader, &lines), (Rows{{"a"}, {"b"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 4}));
}

TEST(CsvReaderTest, QuotedFields) {
  EXPECT_EQ(Parse("\"a,b\",c\n"), (Rows{{"a,b", "c"}}));
  EXPECT_EQ(Parse("\"\",x\n"), (Rows{{"", "x"}}));
  // Profiler shape columns: quoted AND containing literal quotes.
  EXPECT_EQ(Parse("\"\"\"1,2\"\"\",FLOAT\n"), (Rows{{"\"1,2\"", "FLOAT"}}));
  EXPECT_EQ(Parse("\"say \"\"hi\"\" now\"\n"), (Rows{{"say \"hi\" now"}}));
  // Quote in the middle of an unquoted field is literal.
  EXPECT_EQ(Parse("ab\"c,d\n"), (Rows{{"ab\"c", "d"}}));
  // Bytes after a closing quote are kept (lenient, like Python's csv).
  EXPECT_EQ(Parse("\"ab\"cd,e\n"), (Rows{{"abcd", "e"}}));
}

TEST(CsvReaderTest, ScratchFieldsSurviveLaterFieldsInTheRecord) {
  // Several unescaped fields in one record: views must all stay valid.
  std::string data;
  for (int i = 0; i < 50; ++i) data += "\"x\"\"" + std::to_string(i) + "\",";
  data += "end\n";
  Rows rows = Parse(data);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].size(), 51u);
  EXPECT_EQ(rows[0][0], "x\"0");
  EXPECT_EQ(rows[0][49], "x\"49");
  EXPECT_EQ(rows[0][50], "end");
}

TEST(CsvReaderTest, MultiLineFieldsKeepPhysicalLineNumbers) {
  std::vector<int64_t> lines;
  CsvReader reader("h1,h2\r\n\"line1\r\nline2\nline3\",x\r\nnext,y\r\n");
  Rows rows = ReadAll(&reader, &lines);
  EXPECT_EQ(rows, (Rows{{"h1", "h2"}, {"line1\r\nline2\nline3", "x"}, {"next", "y"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 2, 5}));
}

TEST(CsvReaderTest, ByteOffsets) {
  CsvReader reader("ab,c\nde\n");
  CsvRecord record;
  ASSERT_TRUE(reader.Next(&record));
  EXPECT_EQ(record.byte_offset, 0u);
  ASSERT_TRUE(reader.Next(&record));
  EXPECT_EQ(record.byte_offset, 5u);
  EXPECT_EQ(record.line, 2);
  EXPECT_FALSE(reader.Next(&record));
}

TEST(CsvReaderTest, BomIsSkipped) {
  Rows rows = Parse("\xEF\xBB\xBFStep Id,Name\n1,x\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "Step Id");
}

TEST(CsvReaderTest, TrailingTabIsReturnedRaw) {
  EXPECT_EQ(Parse("1736408883704643.212\t,5\n"), (Rows{{"1736408883704643.212\t", "5"}}));
  EXPECT_EQ(Parse("\"1736413971558972.912\t\",5\n"), (Rows{{"1736413971558972.912\t", "5"}}));
}

TEST(CsvReaderTest, UnterminatedQuoteCostsItsRecordAndReadingGoesOn) {
  // RFC 4180 makes the rest of the file one field; the reader gives up on
  // the record at the end of the file and resumes at the line after the
  // opening quote, so the rows after a stray quote are still read.
  CsvReader reader("a,b\n1,2\nx,\"never\nclosed,3\n4,5\n");
  std::vector<int64_t> lines;
  std::vector<CsvRecord> problems;
  Rows rows = ReadAll(&reader, &lines, &problems);
  EXPECT_EQ(rows, (Rows{{"a", "b"}, {"1", "2"}, {"closed", "3"}, {"4", "5"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 2, 4, 5}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kUnterminatedQuote);
  EXPECT_EQ(problems[0].line, 3);
  EXPECT_EQ(problems[0].error.line, 3);
  EXPECT_EQ(problems[0].error.column, 3);
  EXPECT_EQ(problems[0].error.byte_offset, 10u);
  EXPECT_NE(problems[0].error.ToString().find("line 3, column 3 (byte 10): unterminated"),
            std::string::npos);
  CsvRecord record;
  EXPECT_FALSE(reader.Next(&record));  // the end stays the end, no loop
}

TEST(CsvReaderTest, NulByteCostsOnlyItsRecord) {
  const std::string data("a,b\nc,d\x00x\ne,f\n", 14);
  CsvReader reader(data);
  std::vector<int64_t> lines;
  std::vector<CsvRecord> problems;
  EXPECT_EQ(ReadAll(&reader, &lines, &problems), (Rows{{"a", "b"}, {"e", "f"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kNulByte);
  EXPECT_EQ(problems[0].line, 2);
  EXPECT_EQ(problems[0].error.column, 4);
  EXPECT_EQ(problems[0].error.byte_offset, 7u);
}

TEST(CsvReaderTest, NulInsideQuotedFieldKeepsTheRecordStructure) {
  // The NUL is inside a multi-line quoted field: the whole record goes, the
  // next one is read from the right place.
  const std::string data("\"a\x00\nb\",c\nd,e\n", 13);
  CsvReader reader(data);
  std::vector<int64_t> lines;
  std::vector<CsvRecord> problems;
  EXPECT_EQ(ReadAll(&reader, &lines, &problems), (Rows{{"d", "e"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{3}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kNulByte);
  EXPECT_EQ(problems[0].error.byte_offset, 2u);
}

TEST(CsvReaderTest, GarbageBytesDoNotCrash) {
  std::string data;
  uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 1103515245u + 12345u;
    data.push_back(static_cast<char>((state >> 16) & 0xFF));
  }
  CsvReader reader(data, 4096);
  CsvRecord record;
  int records = 0;
  int damaged = 0;
  while (reader.Next(&record)) {
    ++records;
    if (record.problem != CsvProblem::kNone) {
      ++damaged;
      EXPECT_LE(record.error.byte_offset, data.size());
    }
    ASSERT_LE(records, 100000);
  }
  // Random bytes contain NULs: some records are damaged, reading reaches the end.
  EXPECT_GT(damaged, 0);
  EXPECT_EQ(reader.position(), data.size());
}

TEST(CsvReaderTest, HugeFieldCostsItsRecord) {
  std::string data = "a,b\n" + std::string(2000, 'x') + ",y\nc,d\n";
  CsvReader reader(data, /*max_record_bytes=*/1024);
  std::vector<int64_t> lines;
  std::vector<CsvRecord> problems;
  EXPECT_EQ(ReadAll(&reader, &lines, &problems), (Rows{{"a", "b"}, {"c", "d"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kRecordTooLong);
  EXPECT_EQ(problems[0].error.line, 2);
  EXPECT_EQ(problems[0].error.column, 1);
  EXPECT_NE(problems[0].error.message.find("longer than 1024"), std::string::npos);

  // A quoted field over the limit: skipped, resumed at the next line break
  // after the opening quote.
  std::string quoted = "\"" + std::string(2000, 'x') + "\"\nnext\n";
  CsvReader quoted_reader(quoted, 1024);
  problems.clear();
  EXPECT_EQ(ReadAll(&quoted_reader, nullptr, &problems), (Rows{{"next"}}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kRecordTooLong);
}

TEST(CsvReaderTest, RunawayQuoteIsBoundedAndTheRestIsRead) {
  // The stray quote would swallow every later row into one field: past the
  // limit the record is dropped and reading resumes at the next line.
  std::string data = "h,v\nname,\"oops\n";
  for (int i = 0; i < 200; ++i) data += "k" + std::to_string(i) + ",1\n";
  CsvReader reader(data, 256);
  std::vector<CsvRecord> problems;
  Rows rows = ReadAll(&reader, nullptr, &problems);
  ASSERT_EQ(rows.size(), 201u);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"k0", "1"}));
  EXPECT_EQ(rows[200], (std::vector<std::string>{"k199", "1"}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].problem, CsvProblem::kRecordTooLong);
  EXPECT_EQ(problems[0].line, 2);
}

TEST(CsvReaderTest, DefaultCapAllowsBigButSaneRecords) {
  std::string data = std::string(1 << 20, 'x') + "\n";
  Rows rows = Parse(data);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].size(), 1u << 20);
}

TEST(CsvReaderTest, DifferentFieldCountsAreReturnedAsIs) {
  EXPECT_EQ(Parse("a,b,c\n1,2\n1,2,3,4\n"),
            (Rows{{"a", "b", "c"}, {"1", "2"}, {"1", "2", "3", "4"}}));
}

TEST(CsvHeaderTest, AliasesCaseAndWhitespace) {
  std::vector<std::string_view> fields = {"Step ID", " Name ", "Task Start Time(us)", "Block Num",
                                          "\"Type\""};
  CsvHeader header(fields);
  EXPECT_EQ(header.Find({"Step Id"}), 0);
  EXPECT_EQ(header.Find("name"), 1);
  EXPECT_EQ(header.Find({"Start Time(us)", "Task Start Time(us)"}), 2);
  EXPECT_EQ(header.Find({"Block Dim", "Block Num"}), 3);
  EXPECT_EQ(header.Find("start time (us)"), CsvHeader::kAbsent);
  EXPECT_EQ(header.Find("task start time (us)"), 2);
  EXPECT_EQ(header.Find("Type"), 4);
  EXPECT_EQ(header.Find("Device_id"), CsvHeader::kAbsent);
  EXPECT_EQ(header.Joined(), "Step ID, Name, Task Start Time(us), Block Num, Type");
}

}  // namespace
}  // namespace trainscope::formats
