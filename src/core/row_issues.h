// The catalogue of row-level problems: every reason a reader skips a row or
// an event, or notes a field it could not use, declared once here.
//
// Model: Perfetto's src/trace_processor/storage/stats.h. Each entry is
// {enum, key, kind, description}. The key is what the input health prints
// (text, HTML, JSON `skipped_by_reason` / `notes_by_reason`): it is stable,
// tests and users match on it, so never reword one. A key with "{}" is a
// template: the reader fills in the column's name from its CSV spec
// ("negative {}" + "Computing" -> "negative Computing"); docs/ingest.md lists
// every key and the columns each template is used with.
//
// kind: kSkip costs the row (rows_skipped); kNote keeps the row with the
// field defaulted (notes, not counted in rows_skipped).
#pragma once

#include <cstdint>
#include <string_view>

namespace trainscope {

// clang-format off
#define TS_ROW_ISSUES(X)                                                                          \
  /* Any CSV file: the record itself is damaged (the reader resynchronised). */                   \
  X(kCsvNulByte,          "NUL byte in the record",    kSkip, "a NUL byte inside the record: binary data or a truncated write") \
  X(kCsvRecordTooLong,    "record over the size limit", kSkip, "record longer than TRAINSCOPE_CSV_MAX_RECORD_BYTES (default 16 MiB)") \
  X(kCsvUnterminatedQuote, "unterminated quoted field", kSkip, "a quoted field never closed before the end of the file") \
  X(kCsvWrongFieldCount,  "wrong field count",          kSkip, "the record has more or fewer fields than the header") \
  /* CSV cells, per column of a spec (formats/ascend/csv_specs.cc): "{}" is the column. */            \
  X(kMissingValue,        "missing {}",                 kSkip, "a required cell is empty or N/A") \
  X(kUnparsableValue,     "unparsable {}",              kSkip, "a required cell is not a number of the column's unit") \
  X(kUnparsableField,     "unparsable {}",              kNote, "an optional cell is not a number: the default (0 or unknown) is used") \
  X(kNegativeValue,       "negative {}",                kSkip, "a time span or count below zero") \
  X(kValueOutOfRange,     "{} out of range",            kSkip, "a time span or count at or above 2^62 (ns), or a number that overflows") \
  X(kFieldOutOfRange,     "{} out of range",            kNote, "an optional time outside [0, 2^62) ns: 0 is used") \
  /* Trace events (Kineto traces, trace_view.json). */                                            \
  X(kEventNotObject,      "event is not an object",     kSkip, "a number, string or array where an event object belongs") \
  X(kEventTooLong,        "event over the size limit",  kSkip, "an event longer than TRAINSCOPE_MAX_EVENT_BYTES, read past without being held") \
  X(kEventInvalidUtf8,    "invalid UTF-8",              kSkip, "the event's bytes are not UTF-8") \
  X(kEventInvalid,        "invalid event",              kSkip, "the event is not valid JSON (the detail has simdjson's message)") \
  X(kMissingPhase,        "missing ph",                 kSkip, "the event has no phase") \
  X(kUnknownPhase,        "unknown phase",              kSkip, "a phase this tool does not read (not X, i/I, s/f/t, M, C)") \
  X(kCounter,             "counter",                    kSkip, "a counter event (ph C): not read") \
  X(kMissingTs,           "missing ts",                 kSkip, "the event has no timestamp") \
  X(kBadTs,               "bad ts",                     kSkip, "the timestamp is not a number") \
  X(kTimestampOutOfRange, "timestamp out of range",     kSkip, "the timestamp is outside [0, 2^62) ns") \
  X(kDurationOutOfRange,  "duration out of range",      kSkip, "the duration is negative or 2^62 ns and more") \
  X(kBadDur,              "bad dur (0 used)",           kNote, "the duration is not a number: 0 is used") \
  X(kGpuUserAnnotation,   "gpu_user_annotation",        kSkip, "a user annotation on the GPU timeline: not a kernel") \
  X(kCudaSync,            "cuda_sync",                  kSkip, "a CUDA synchronisation marker: not a kernel") \
  X(kInstantEvent,        "instant event",              kSkip, "an instant event other than [memory]") \
  X(kFlowNotLaunchOrFwdBwd, "flow other than launch or fwdbwd", kSkip, "a Kineto flow of another category") \
  X(kFlowNotLaunch,       "flow other than launch",     kSkip, "a trace_view.json flow other than async_npu / HostToDevice") \
  X(kFlowWithoutId,       "flow without id",            kSkip, "a flow event without an id") \
  X(kIdOverflow,          "id overflow",                kSkip, "a flow id that does not fit 64 bits") \
  X(kCorrelationOverflow, "id overflow (correlation dropped)", kNote, "a correlation id that does not fit 64 bits: the activity is kept without it") \
  X(kArgsNotObject,       "args is not an object (ignored)", kNote, "\"args\" is null, a number or an array: read as absent") \
  X(kHcclPlaneTask,       "HCCL plane task",            kSkip, "trace_view.json HCCL plane lanes, .db TASK rows of COMMUNICATION_TASK_INFO (per-link detail of an op already counted)") \
  X(kUnknownOverlapSegment, "unknown overlap segment",  kSkip, "an Overlap Analysis lane other than Computing, Communication(Not Overlapped), Communication, Free") \
  X(kNonComputeDeviceTask, "device task that is not a kernel", kSkip, "trace_view.json Ascend Hardware task other than AI_CORE, AI_VECTOR_CORE, MIX_AIC/AIV, AI_CPU (event record/wait, placeholders, HCCL's SDMA/notify tasks): left out as CANN's Overlap Analysis leaves it out; .db TASK rows without COMPUTE_TASK_INFO likewise") \
  X(kHcclStreamTask,       "HCCL task on a communication stream", kSkip, "trace_view.json Ascend Hardware task typed Other (2024 exports) named hcom_* or on a stream whose every such task starts inside an hcom_* op's window: HCCL's own sub-task of a collective already counted once as its hcom op, so neither computation nor a second communication") \
  X(kUnknownStringId,     "unknown string id in {}",    kNote, ".db export: a string id that STRING_IDS lacks: the text is read as empty") \
  X(kDeviceWideMemory,    "device-wide memory row",     kSkip, ".db NPU_MEM rows of another type than app (the whole device's memory, not the process's)") \
  X(kLinkWithoutHostOp,   "link to no host op",         kSkip, ".db CONNECTION_IDS rows whose id no PYTORCH_API row carries (the host end of the link is missing)") \
  /* Training logs (formats/log, docs/health.md). */                                              \
  X(kLogNotTrainingLine,  "not a training line",        kSkip, "a log line that is neither a training record of a known format nor a classified error line (other output interleaved)") \
  X(kLogUnparsableNumber, "unparsable number",          kSkip, "a training line whose step or a metric is not a number (a line cut off or garbled)") \
  X(kLogLineTooLong,      "line over the size limit",   kSkip, "a log line longer than 1 MiB, read past without being held") \
  /* Tensor dumps (formats/accuracy, docs/accuracy.md): one row = one tensor. */                   \
  X(kTensorBadHeader,     "bad tensor header",          kSkip, "a .npy header that is not NumPy's format (magic, version, header length, dict, descr, shape)") \
  X(kTensorTruncated,     "tensor file truncated",      kSkip, "the header's shape and dtype need more bytes than the file holds") \
  X(kTensorUnsupportedType, "unsupported dtype",        kSkip, "an element type not compared (complex, strings, objects, a .pt file)") \
  X(kTensorFileMissing,   "tensor file missing",        kNote, "dump.json names a data file that is not in dump_tensor_data/: the statistics are compared") \
  X(kTensorDataNotRead,   "tensor data not read",       kNote, "dump.json names a data file this tool does not read (.pt) or that is damaged: the statistics are compared") \
  X(kDumpEntryMalformed,  "malformed dump entry",       kSkip, "a dump.json tensor entry that is not an object with dtype and shape") \
  X(kNpzMemberBad,        "bad npz member",             kSkip, "a .npz member whose zip entry is damaged or compressed other than stored/deflate")
// clang-format on

enum class RowIssueKind : uint8_t { kSkip, kNote };

enum class RowIssue : uint8_t {
#define TS_ROW_ISSUE_ENUM(name, key, kind, description) name,
  TS_ROW_ISSUES(TS_ROW_ISSUE_ENUM)
#undef TS_ROW_ISSUE_ENUM
      kCount,
  kNone = kCount,  // no issue (RawEvent::skip of a good event)
};

struct RowIssueInfo {
  std::string_view key;  // "{}" = the column name
  RowIssueKind kind;
  std::string_view description;
};

inline constexpr RowIssueInfo kRowIssues[] = {
#define TS_ROW_ISSUE_INFO(name, key, kind, description) {key, RowIssueKind::kind, description},
    TS_ROW_ISSUES(TS_ROW_ISSUE_INFO)
#undef TS_ROW_ISSUE_INFO
};
static_assert(sizeof(kRowIssues) / sizeof(kRowIssues[0]) == static_cast<size_t>(RowIssue::kCount));

inline const RowIssueInfo& Info(RowIssue issue) { return kRowIssues[static_cast<size_t>(issue)]; }

// Whether |issue|'s key is a template that takes a column name.
inline bool TakesColumn(RowIssue issue) {
  return Info(issue).key.find("{}") != std::string_view::npos;
}

}  // namespace trainscope
