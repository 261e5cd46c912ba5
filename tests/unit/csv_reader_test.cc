#include "formats/csv/csv_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/csv/csv_header.h"

namespace trainscope::formats {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// Reads everything; returns the rows and leaves the reader for error checks.
Rows ReadAll(CsvReader* reader, std::vector<int64_t>* lines = nullptr) {
  Rows rows;
  CsvRecord record;
  while (reader->Next(&record)) {
    rows.emplace_back(record.fields.begin(), record.fields.end());
    if (lines != nullptr) lines->push_back(record.line);
  }
  return rows;
}

Rows Parse(std::string_view data) {
  CsvReader reader(data);
  Rows rows = ReadAll(&reader);
  EXPECT_EQ(reader.error(), nullptr) << reader.error()->ToString();
  return rows;
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
  ASSERT_EQ(reader.error(), nullptr);
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

TEST(CsvReaderTest, UnterminatedQuoteReportsWhereItOpened) {
  CsvReader reader("a,b\n1,2\nx,\"never\nclosed\n");
  Rows rows = ReadAll(&reader);
  EXPECT_EQ(rows, (Rows{{"a", "b"}, {"1", "2"}}));
  ASSERT_NE(reader.error(), nullptr);
  EXPECT_EQ(reader.error()->line, 3);
  EXPECT_EQ(reader.error()->column, 3);
  EXPECT_EQ(reader.error()->byte_offset, 10u);
  EXPECT_EQ(reader.error()->record_line, 3);
  EXPECT_NE(reader.error()->message.find("unterminated"), std::string::npos);
  EXPECT_NE(reader.error()->ToString().find("line 3, column 3 (byte 10)"), std::string::npos);
  CsvRecord record;
  EXPECT_FALSE(reader.Next(&record));  // stays failed, no loop
}

TEST(CsvReaderTest, NulByteIsAnErrorWithPosition) {
  const std::string data("a,b\nc,d\x00x\n", 10);
  CsvReader reader(data);
  Rows rows = ReadAll(&reader);
  EXPECT_EQ(rows, (Rows{{"a", "b"}}));
  ASSERT_NE(reader.error(), nullptr);
  EXPECT_EQ(reader.error()->line, 2);
  EXPECT_EQ(reader.error()->column, 4);
  EXPECT_EQ(reader.error()->byte_offset, 7u);
}

TEST(CsvReaderTest, NulInsideQuotedField) {
  const std::string data("\"a\x00\"\n", 5);
  CsvReader reader(data);
  EXPECT_TRUE(ReadAll(&reader).empty());
  ASSERT_NE(reader.error(), nullptr);
  EXPECT_EQ(reader.error()->byte_offset, 2u);
}

TEST(CsvReaderTest, GarbageBytesDoNotCrash) {
  std::string data;
  uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 1103515245u + 12345u;
    data.push_back(static_cast<char>((state >> 16) & 0xFF));
  }
  CsvReader reader(data);
  CsvRecord record;
  int records = 0;
  while (reader.Next(&record)) ++records;
  // Random bytes contain NULs: the reader must stop with an error.
  ASSERT_NE(reader.error(), nullptr);
  EXPECT_LE(reader.error()->byte_offset, data.size());
}

TEST(CsvReaderTest, HugeFieldIsRejected) {
  std::string data = "a,b\n" + std::string(2000, 'x') + ",y\n";
  CsvReader reader(data, /*max_record_bytes=*/1024);
  Rows rows = ReadAll(&reader);
  EXPECT_EQ(rows.size(), 1u);
  ASSERT_NE(reader.error(), nullptr);
  EXPECT_EQ(reader.error()->line, 2);
  EXPECT_NE(reader.error()->message.find("longer than 1024"), std::string::npos);

  std::string quoted = "\"" + std::string(2000, 'x') + "\"\n";
  CsvReader quoted_reader(quoted, 1024);
  EXPECT_TRUE(ReadAll(&quoted_reader).empty());
  ASSERT_NE(quoted_reader.error(), nullptr);
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
