#include "formats/csv/csv_reader.h"

#include <gtest/gtest.h>

#include <random>
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
  // Appended, not concatenated: GCC 12 warns falsely (-Warray-bounds) on
  // std::string(n, c) + "\n" inlined in some unity batches.
  std::string data(1 << 20, 'x');
  data.push_back('\n');
  Rows rows = Parse(data);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].size(), 1u << 20);
}

TEST(CsvReaderTest, DifferentFieldCountsAreReturnedAsIs) {
  EXPECT_EQ(Parse("a,b,c\n1,2\n1,2,3,4\n"),
            (Rows{{"a", "b", "c"}, {"1", "2"}, {"1", "2", "3", "4"}}));
}

// The unquoted fast path finds field ends 64 bytes at a time (a bit mask
// per block, csv_reader.cc StopIndex). Random rows of fields from 0 to 150
// bytes put every stop at every position of a block, across block ends and
// at the end of the data; each is compared with a plain split, read whole
// and read in two chunks split at a random line start.
TEST(CsvReaderTest, UnquotedFieldsAgreeWithAPlainSplitAtEveryBlockPosition) {
  std::mt19937 rng(21);
  for (int round = 0; round < 300; ++round) {
    std::string data;
    Rows expected;
    std::vector<size_t> line_starts;
    const int rows = 1 + static_cast<int>(rng() % 12);
    for (int r = 0; r < rows; ++r) {
      line_starts.push_back(data.size());
      std::vector<std::string> row;
      const int fields = 1 + static_cast<int>(rng() % 9);
      for (int f = 0; f < fields; ++f) {
        const size_t length = rng() % 4 == 0 ? rng() % 151 : rng() % 9;
        std::string field;
        for (size_t i = 0; i < length; ++i) field += static_cast<char>('a' + rng() % 26);
        if (field.empty() && fields == 1) field = "x";  // an empty line is blank, not a row
        if (f > 0) data += ',';
        data += field;
        row.push_back(field);
      }
      expected.push_back(row);
      const unsigned end = rng() % 3;
      const bool last = r + 1 == rows;
      if (last && rng() % 2 == 0) break;  // no line end after the last row
      data += end == 0 ? "\n" : end == 1 ? "\r\n" : "\r";
    }
    ASSERT_EQ(Parse(data), expected) << "round " << round;

    const size_t split = rng() % line_starts.size();
    CsvReader head(data, CsvReader::kDefaultMaxRecordBytes, 0, line_starts[split]);
    CsvReader tail(data, CsvReader::kDefaultMaxRecordBytes, line_starts[split], data.size());
    Rows chunked = ReadAll(&head);
    const Rows rest = ReadAll(&tail);
    chunked.insert(chunked.end(), rest.begin(), rest.end());
    ASSERT_EQ(chunked, expected) << "round " << round << ", split at row " << split;
  }
}

TEST(CsvReaderTest, StopsOnBothSidesOfABlockEnd) {
  // A delimiter at byte 63, 64 and 65 of the data, and a NUL at 63 and 64.
  for (size_t at : {62, 63, 64, 65}) {
    std::string data(at, 'a');
    data += ",b\n";
    ASSERT_EQ(Parse(data), (Rows{{std::string(at, 'a'), "b"}})) << at;
  }
  for (size_t at : {63, 64}) {
    std::string data = "x,y\n" + std::string(at - 4, 'a');
    data += std::string(1, '\0') + "z,w\nlast\n";
    CsvReader reader(data);
    std::vector<CsvRecord> problems;
    EXPECT_EQ(ReadAll(&reader, nullptr, &problems), (Rows{{"x", "y"}, {"last"}})) << at;
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].problem, CsvProblem::kNulByte);
    EXPECT_EQ(problems[0].error.byte_offset, at);
  }
  // Data that ends exactly at a block end, with and without a line end.
  EXPECT_EQ(Parse(std::string(63, 'a') + "\n"), (Rows{{std::string(63, 'a')}}));
  EXPECT_EQ(Parse(std::string(128, 'a')), (Rows{{std::string(128, 'a')}}));
}

// Everything a reader reports about one record, as text, for comparing two
// readings of the same data.
std::string Describe(const CsvRecord& record, const CsvReader& reader) {
  std::string out = "line " + std::to_string(record.line) + " at " +
                    std::to_string(record.byte_offset) + " problem " +
                    std::to_string(static_cast<int>(record.problem)) + " then " +
                    std::to_string(reader.position()) + "/" + std::to_string(reader.line());
  if (record.problem != CsvProblem::kNone) {
    out += " [" + record.error.ToString() + " | " + record.error.DescribeInRecord() + "]";
  }
  for (std::string_view field : record.fields) {
    out += " <";
    out += field;
    out += ">";
  }
  return out;
}

// Every record of |data| read with the fast path and without it (the
// byte-by-byte reference), from |begin| to |end| with |limit|.
// Returns the records the fast reader read on its fast path, and all.
std::pair<uint64_t, uint64_t> ExpectBothPathsAgree(const std::string& data, size_t limit,
                                                   size_t begin, size_t end,
                                                   const std::string& context) {
  CsvReader fast(data, limit, begin, end);
  CsvReader slow(data, limit, begin, end);
  slow.set_fast_path(false);
  CsvRecord a;
  CsvRecord b;
  uint64_t records = 0;
  for (;; ++records) {
    const bool more_a = fast.Next(&a);
    const bool more_b = slow.Next(&b);
    EXPECT_EQ(more_a, more_b) << context << ", record " << records;
    if (!more_a || !more_b) break;
    const std::string described = Describe(a, fast);
    EXPECT_EQ(described, Describe(b, slow)) << context << ", record " << records;
    if (described != Describe(b, slow)) break;
  }
  EXPECT_EQ(fast.position(), slow.position()) << context;
  EXPECT_EQ(slow.fast_records(), 0U) << context;
  return {fast.fast_records(), records};
}

// The fast path (NextFast) reads ordinary records 64 bytes at a time and
// hands every other record to the byte-by-byte path: both must read any
// data alike, records, lines, offsets and problems. Random text from the
// bytes that matter (delimiters, quotes, line ends, NUL) in runs long
// enough to cross block ends, records of real shapes (quoted shapes with
// doubled quotes, CRLF, a lenient tail after a quote, a quoted line break),
// read whole and from a random line start, under several record limits.
TEST(CsvReaderTest, FastPathReadsEveryInputAsTheByteByBytePathDoes) {
  std::mt19937 rng(2026);
  const std::string pieces[] = {"a",
                                "17",
                                ",",
                                "\"",
                                "\"\"",
                                "\n",
                                "\r\n",
                                "\r",
                                std::string(1, '\0'),
                                " ",
                                "\t",
                                "N/A",
                                "\"\"\"1,4096\"\"\"",
                                "\"x\"y",
                                "\"a\nb\"",
                                std::string(70, 'k'),
                                std::string(130, 'z'),
                                "\xEF\xBB\xBF"};
  const size_t limits[] = {8, 64, 100, 300, CsvReader::kDefaultMaxRecordBytes};
  uint64_t fast = 0;
  uint64_t all = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string data;
    const int count = static_cast<int>(rng() % 60);
    for (int i = 0; i < count; ++i) {
      // Mostly ordinary fields and delimiters, so that whole records take
      // the fast path; now and then a byte that sends one to the slow path.
      const size_t pick = rng() % 100;
      if (pick < 30) {
        data += pieces[0];
      } else if (pick < 50) {
        data += pieces[2];
      } else if (pick < 60) {
        data += pieces[5];
      } else {
        data += pieces[rng() % std::size(pieces)];
      }
    }
    const size_t limit = limits[rng() % std::size(limits)];
    const std::string context =
        "round " + std::to_string(round) + ", limit " + std::to_string(limit);
    const auto [whole_fast, whole_all] = ExpectBothPathsAgree(data, limit, 0, data.size(), context);
    fast += whole_fast;
    all += whole_all;
    // From a line start inside the data, as a chunk is read.
    const size_t from = data.empty() ? 0 : rng() % data.size();
    const size_t start = data.find('\n', from);
    if (start != std::string::npos) {
      ExpectBothPathsAgree(data, limit, start + 1, data.size(), context + ", chunk");
    }
    if (HasFailure()) return;
  }
  // Both paths were exercised: most records fast, many slow.
  EXPECT_GT(fast, all / 2);
  EXPECT_LT(fast, all - all / 10);
}

// A quoted field's doubled quote, closing quote and the delimiter after it
// at every position of the fast path's first and second block (a pair split
// by a block end is where its second quote must not close the field).
TEST(CsvReaderTest, FastPathQuotesAtEveryBlockPosition) {
  for (size_t pad = 0; pad < 140; ++pad) {
    for (const char* quoted : {"\"a\"\"b\"", "\"\"\"1,2\"\"\"", "\"\"", "\"x\"\""}) {
      const std::string data = "h,i\n" + std::string(pad, 'p') + "," + quoted + ",z\r\nlast";
      const std::string context = "pad " + std::to_string(pad) + " " + quoted;
      const auto [fast, all] =
          ExpectBothPathsAgree(data, CsvReader::kDefaultMaxRecordBytes, 0, data.size(), context);
      EXPECT_EQ(all, 3U) << context;
      EXPECT_EQ(fast, std::string_view(quoted) == "\"x\"\"" ? 2U : 3U) << context;
    }
    if (HasFailure()) return;
  }
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
