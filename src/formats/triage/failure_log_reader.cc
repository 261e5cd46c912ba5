#include "formats/triage/failure_log_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <string_view>
#include <vector>

#include "core/anchor_filter.h"
#include "core/dir_walk.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "formats/log/flight_recorder_reader.h"
#include "formats/log/training_log_reader.h"

namespace trainscope::formats {
namespace {

using model::FailureEvent;
using model::FailureKind;

bool Has(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

// The digits at |pos| (nullopt when none; at most 18 of them).
std::optional<int64_t> DigitsAt(std::string_view text, size_t pos) {
  bool negative = false;
  if (pos < text.size() && text[pos] == '-') {
    negative = true;
    ++pos;
  }
  int64_t v = 0;
  size_t n = 0;
  while (pos + n < text.size() && n < 18 &&
         std::isdigit(static_cast<unsigned char>(text[pos + n]))) {
    v = v * 10 + (text[pos + n] - '0');
    ++n;
  }
  if (n == 0) return std::nullopt;
  return negative ? -v : v;
}

// The number right after |key| ("SeqNum=" -> 5).
std::optional<int64_t> NumberAfter(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t pos = at + key.size();
  while (pos < text.size() && text[pos] == ' ') ++pos;
  return DigitsAt(text, pos);
}

// The text after |key| up to one of |stops| ("OpType=" -> "BROADCAST").
std::string WordAfter(std::string_view text, std::string_view key, std::string_view stops) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return {};
  const size_t begin = at + key.size();
  const size_t end = text.find_first_of(stops, begin);
  return std::string(
      text.substr(begin, end == std::string_view::npos ? text.size() - begin : end - begin));
}

std::string Cut(std::string_view line) {
  return std::string(line.substr(0, std::min<size_t>(line.size(), 400)));
}

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsDigits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[pos + i]))) return false;
  }
  return true;
}

int64_t Num(std::string_view s, size_t pos, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v * 10 + (s[pos + i] - '0');
  return v;
}

// Where a clock starts in |line| (within its first 80 bytes), or npos.
size_t FindClock(std::string_view line) {
  const size_t limit = std::min<size_t>(line.size(), 80);
  for (size_t i = 0; i + 19 <= line.size() && i < limit; ++i) {
    if (IsDigits(line, i, 4) && line[i + 4] == '-' && IsDigits(line, i + 5, 2) &&
        line[i + 7] == '-' && IsDigits(line, i + 8, 2) &&
        (line[i + 10] == '-' || line[i + 10] == ' ' || line[i + 10] == 'T') &&
        IsDigits(line, i + 11, 2) && line[i + 13] == ':') {
      return i;
    }
  }
  return std::string_view::npos;
}

// The marks a line names its rank with: "[rank6]:", "[Rank 6]", "[PG 0 Rank
// 6]", and "rank 1 died from signal".
constexpr std::string_view kRankMarks[] = {"[rank", "[Rank ", " Rank ", "[PG "};
constexpr std::string_view kDiedFromSignal = " died from signal";

std::optional<int64_t> RankOf(std::string_view line) {
  for (std::string_view key : kRankMarks) {
    size_t at = line.find(key);
    if (at == std::string_view::npos) continue;
    if (key == "[PG ") {
      const size_t r = line.find(" Rank ", at);
      if (r == std::string_view::npos) continue;
      at = r;
      key = " Rank ";
    }
    std::optional<int64_t> v = DigitsAt(line, at + key.size());
    if (v) return v;
  }
  const size_t died = line.find(kDiedFromSignal);
  if (died != std::string_view::npos) {
    const size_t r = line.rfind("rank ", died);
    if (r != std::string_view::npos) return DigitsAt(line, r + 5);
  }
  return std::nullopt;
}

std::optional<int64_t> SignalOf(std::string_view line) {
  for (std::string_view key : {"died from signal ", "Signal ", "signal "}) {
    std::optional<int64_t> v = NumberAfter(line, key);
    if (v) return v;
  }
  if (Has(line, "SIGKILL")) return 9;
  if (Has(line, "SIGTERM")) return 15;
  if (Has(line, "SIGABRT")) return 6;
  if (Has(line, "SIGSEGV")) return 11;
  return std::nullopt;
}

// The folders of |path|: worker-N, device-N; the file's PID.
void ReadPathParts(const std::string& path, model::FailureLog* log) {
  namespace fs = std::filesystem;
  for (const fs::path& part : fs::path(path).parent_path()) {
    const std::string p = part.string();
    if (p.rfind("worker-", 0) == 0) log->worker = p;
    if (p.rfind("device-", 0) == 0) log->device = DigitsAt(p, 7);
  }
  const std::string file = fs::path(path).filename().string();
  for (std::string_view prefix : {"plog-", "device-"}) {
    if (file.rfind(prefix, 0) == 0) log->pid = DigitsAt(file, prefix.size());
  }
}

// A plog line: "[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.424 [file:line]...".
struct PlogLine {
  std::string_view level, module, clock, body;
  bool ok = false;
};

PlogLine SplitPlog(std::string_view line) {
  PlogLine p;
  if (line.size() < 10 || line[0] != '[') return p;
  const size_t close = line.find(']');
  if (close == std::string_view::npos || close > 10) return p;
  p.level = line.substr(1, close - 1);
  const size_t paren = line.find('(', close);
  const size_t colon = line.find("):", close);
  if (paren == std::string_view::npos || colon == std::string_view::npos || colon < paren) return p;
  p.module =
      line.substr(close + 2 <= paren ? close + 2 : paren, paren - std::min(paren, close + 2));
  const size_t clock_begin = colon + 2;
  const size_t clock_end = line.find(' ', clock_begin);
  if (clock_end == std::string_view::npos) return p;
  p.clock = line.substr(clock_begin, clock_end - clock_begin);
  p.body = line.substr(clock_end + 1);
  p.ok = true;
  return p;
}

// "[...]rankNum[3], rank[0], ... logicDevId[11], deviceIp[1.1.1.1]".
std::optional<int64_t> Bracketed(std::string_view body, std::string_view key) {
  size_t at = 0;
  while ((at = body.find(key, at)) != std::string_view::npos) {
    const bool word_start = at == 0 || !std::isalnum(static_cast<unsigned char>(body[at - 1]));
    if (word_start && at + key.size() < body.size() && body[at + key.size()] == '[') {
      return DigitsAt(body, at + key.size() + 1);
    }
    at += key.size();
  }
  return std::nullopt;
}

std::string BracketedText(std::string_view body, std::string_view key) {
  const size_t at = body.find(std::string(key) + "[");
  if (at == std::string_view::npos) return {};
  const size_t begin = at + key.size() + 1;
  const size_t end = body.find(']', begin);
  return end == std::string_view::npos ? std::string()
                                       : std::string(body.substr(begin, end - begin));
}

// "124.0.0.11(1)" -> ip, rank.
void IpRank(std::string_view cell, std::string* ip, std::optional<int64_t>* rank) {
  size_t b = cell.find_first_not_of(" \t");
  size_t e = cell.find_last_not_of(" \t");
  if (b == std::string_view::npos) return;
  cell = cell.substr(b, e - b + 1);
  const size_t open = cell.find('(');
  *ip = std::string(cell.substr(0, open));
  if (open != std::string_view::npos) *rank = DigitsAt(cell, open + 1);
}

std::string Trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// "key:VALUE," in aicpu task-exception lines ("remoteRank:0,").
std::optional<int64_t> ColonNumber(std::string_view body, std::string_view key) {
  const size_t at = body.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  return DigitsAt(body, at + key.size());
}

void ReadIdentity(std::string_view body, model::FailureLog* log) {
  model::HcclIdentity id = log->identity.value_or(model::HcclIdentity{});
  if (auto v = Bracketed(body, "rank")) id.rank = v;
  if (auto v = Bracketed(body, "rankNum")) id.rank_num = v;
  if (auto v = Bracketed(body, "totalRanks")) id.rank_num = v;
  if (auto v = Bracketed(body, "logicDevId")) id.device = v;
  if (std::string ip = BracketedText(body, "deviceIp"); !ip.empty()) id.device_ip = ip;
  if (std::string s = BracketedText(body, "server"); !s.empty()) id.server = s;
  log->identity = id;
}

// LINK_ERROR_INFO: "| dest_ip(rank) | src_ip(rank) | Role | Status |"; false when not a row.
bool ReadLinkRow(std::string_view body, const FailureEvent& ev, model::FailureLog* log) {
  if (std::count(body.begin(), body.end(), '|') < 5 || !Has(body, "(") || Has(body, "dest_ip")) {
    return false;
  }
  std::vector<std::string_view> cells;
  size_t pos = body.find('|');
  while (pos != std::string_view::npos) {
    const size_t next = body.find('|', pos + 1);
    if (next == std::string_view::npos) break;
    cells.push_back(body.substr(pos + 1, next - pos - 1));
    pos = next;
  }
  if (cells.size() < 4) return false;
  model::LinkRecord r;
  IpRank(cells[0], &r.dest_ip, &r.dest_rank);
  IpRank(cells[1], &r.src_ip, &r.src_rank);
  r.role = Trimmed(cells[2]);
  r.status = Trimmed(cells[3]);
  r.line = ev.line;
  r.clock = ev.clock;
  r.time_ns = ev.time_ns;
  log->links.push_back(r);
  FailureEvent link = ev;
  link.kind = FailureKind::kLinkError;
  link.remote_rank = r.dest_rank;
  log->events.push_back(std::move(link));
  return true;
}

// The kind of an HCCL / RUNTIME ERROR line (false: a line of detail).
bool ClassifyPlogError(std::string_view body, FailureEvent* ev) {
  if (Has(body, "socket establish timeout") || Has(body, "connect timeout")) {
    ev->kind = FailureKind::kConnectTimeout;
    ev->remote_rank = Bracketed(body, "rank");
  } else if (Has(body, "Transport init error") || Has(body, "link error")) {
    ev->kind = FailureKind::kLinkError;
  } else if (Has(body, "TaskException") && (Has(body, "type:NOTIFY") || Has(body, "type:SDMA"))) {
    ev->kind = Has(body, "type:SDMA") ? FailureKind::kSdmaError : FailureKind::kNotifyTimeout;
    ev->remote_rank = ColonNumber(body, "remoteRank:");
  } else if (Has(body, "notify wait timeout") || Has(body, "NotifyWait timeout") ||
             Has(body, "notify timeout")) {
    ev->kind = FailureKind::kNotifyTimeout;
  } else if (Has(body, "dispatch timeout")) {
    ev->kind = FailureKind::kDispatchTimeout;
    ev->seq = NumberAfter(body, "seq_num ");
    ev->op = WordAfter(body, "Process group work ", ", ");
  } else if (Has(body, "out of memory") || Has(body, "OutOfMemory")) {
    ev->kind = FailureKind::kOutOfMemory;
  } else if (Has(body, "Task run failed") || Has(body, "run failed of exception") ||
             Has(body, "device task abort") || Has(body, "aicore error")) {
    ev->kind = FailureKind::kDeviceError;
  } else if (Has(body, "errNo[") || Has(body, " fail") || Has(body, " error")) {
    ev->kind = FailureKind::kCollectiveError;
    ev->op = BracketedText(body, "tag");
  } else {
    return false;
  }
  if (ev->remote_rank && *ev->remote_rank >= 0xFFFFFFF)
    ev->remote_rank.reset();  // 4294967295: none
  return true;
}

void ReadPlogLine(const PlogLine& p, int64_t number, std::string_view line,
                  model::FailureLog* log) {
  const std::string_view body = p.body;
  if (p.level == "INFO" || p.level == "EVENT" || p.level == "DEBUG") {
    if (Has(body, "SetupAgent") || Has(body, "hcclCommInitInfo")) ReadIdentity(body, log);
    return;
  }
  if (p.level != "ERROR") return;
  FailureEvent ev;
  ev.clock = std::string(p.clock);
  ev.time_ns = ParseLogClock(p.clock);
  ev.line = number;
  ev.text = Cut(line);
  if (ReadLinkRow(body, ev, log)) return;
  if (Has(body, "comm error, device[")) {
    if (!log->device) log->device = Bracketed(body, "device");
    return;
  }
  if (Has(body, "LINK_ERROR_INFO") || Has(body, "|---") || Has(body, "___") ||
      Has(body, "may be due to the following reasons")) {
    return;  // the table's frame, not a row
  }
  if (ClassifyPlogError(body, &ev)) log->events.push_back(std::move(ev));
}

// "Timeout at NCCL work: N, last enqueued ..., last completed ...": completes
// the rank's watchdog event.
void CompleteWatchdog(std::string_view line, std::optional<int64_t> rank, model::FailureLog* log) {
  for (auto it = log->events.rbegin(); it != log->events.rend(); ++it) {
    if (it->kind == FailureKind::kWatchdogTimeout && it->rank == rank) {
      it->last_enqueued = NumberAfter(line, "last enqueued NCCL work: ");
      it->last_completed = NumberAfter(line, "last completed NCCL work: ");
      if (!it->pg) it->pg = NumberAfter(line, "[PG ");
      return;
    }
  }
}

template <typename Texts>
bool HasAny(std::string_view line, const Texts& whats) {
  return std::any_of(std::begin(whats), std::end(whats),
                     [&](std::string_view w) { return Has(line, w); });
}

bool HasAny(std::string_view line, std::initializer_list<std::string_view> whats) {
  return HasAny<std::initializer_list<std::string_view>>(line, whats);
}

constexpr std::string_view kWatchdogTimeout = "Watchdog caught collective operation timeout";
constexpr std::string_view kWatchdogSecondLine = "Timeout at NCCL work:";
constexpr std::string_view kWorldSize = "NCCL INFO comm ";
constexpr std::string_view kTrainingFinished[] = {"Total run time", "Training completed",
                                                  "training finished", "Training finished"};

// The kinds a line is of by the texts it holds, after the watchdog's, in the
// order they are tried (the first that matches wins).
struct KindByTexts {
  FailureKind kind;
  std::vector<std::string_view> texts;
};
const KindByTexts kKindsByTexts[] = {
    {FailureKind::kTimeLimit, {"DUE TO TIME LIMIT"}},
    {FailureKind::kCancelled, {"CANCELLED AT", "DUE TO PREEMPTION"}},
    {FailureKind::kChildFailed, {"ChildFailedError"}},
    {FailureKind::kOutOfMemory,
     {"CUDA out of memory", "OutOfMemoryError", "NPU out of memory", "oom-kill", "Out of memory"}},
    {FailureKind::kSegfault, {"Segmentation fault", "SIGSEGV"}},
    {FailureKind::kSignal,
     {"died from signal", "(SIGTERM) received", "(SIGKILL)", "Received SIGTERM", "Killed by signal",
      "exited on signal"}},
    {FailureKind::kCollectiveError,
     {"NCCL WARN", "ncclInternalError", "ncclSystemError", "ncclRemoteError",
      "ncclUnhandledCudaError", "NCCL error"}},
    {FailureKind::kDeviceError,
     {"CUDA error", "NVRM: Xid", "uncorrectable ECC", "cudaErrorLaunchFailure"}},
    {FailureKind::kDispatchTimeout, {"dispatch timeout"}},
};

// The kind of a c10d / NCCL / launcher / scheduler line (false: no failure).
bool ClassifyTorchLine(std::string_view line, FailureEvent* ev) {
  if (Has(line, kWatchdogTimeout) && !HasAny(line, {"terminated with exception", "what():"})) {
    ev->kind = FailureKind::kWatchdogTimeout;
    ev->seq = NumberAfter(line, "SeqNum=");
    ev->op = WordAfter(line, "OpType=", ", )");
    ev->numel_in = NumberAfter(line, "NumelIn=");
    ev->numel_out = NumberAfter(line, "NumelOut=");
    ev->timeout_ms = NumberAfter(line, "Timeout(ms)=");
    ev->ran_ms = NumberAfter(line, "ran for ");
    ev->pg = NumberAfter(line, "[PG ");
    return true;
  }
  for (const KindByTexts& k : kKindsByTexts) {
    if (!HasAny(line, k.texts)) continue;
    ev->kind = k.kind;
    if (k.kind == FailureKind::kSegfault) ev->signal = 11;
    if (k.kind == FailureKind::kSignal) ev->signal = SignalOf(line);
    if (k.kind == FailureKind::kDispatchTimeout) ev->seq = NumberAfter(line, "seq_num ");
    return true;
  }
  return false;
}

// Every text of which a line holds one when ReadTorchLine takes anything
// from it: the rank's marks, the world size's, the end of training's, the
// watchdog's two lines and every kind's texts. Most lines of a training log
// hold none, and one pass over the line decides it (core/anchor_filter.h)
// where the ~45 searches took 17 % of triage's time on 1,024 ranks' logs.
const AnchorFilter& TorchLineAnchors() {
  static const AnchorFilter anchors = [] {
    std::vector<std::string_view> texts(std::begin(kRankMarks), std::end(kRankMarks));
    texts.insert(texts.end(), std::begin(kTrainingFinished), std::end(kTrainingFinished));
    texts.insert(texts.end(), {kDiedFromSignal, kWorldSize, kWatchdogSecondLine, kWatchdogTimeout});
    for (const KindByTexts& k : kKindsByTexts) {
      texts.insert(texts.end(), k.texts.begin(), k.texts.end());
    }
    return AnchorFilter(texts);
  }();
  return anchors;
}

// A c10d / NCCL / launcher / scheduler line.
void ReadTorchLine(std::string_view line, int64_t number, model::FailureLog* log) {
  if (!TorchLineAnchors().MayHold(line)) return;
  const std::optional<int64_t> rank = RankOf(line);
  if (Has(line, kWorldSize) && Has(line, " nRanks ")) {
    if (auto n = NumberAfter(line, " nRanks ")) log->world_size = n;
    if (auto r = NumberAfter(line, " rank ")) log->ranks[*r];
  }
  if (HasAny(line, kTrainingFinished)) log->finished = true;
  if (rank && (line.find("[rank") != std::string_view::npos || Has(line, "Rank "))) {
    model::RankTrail& t = log->ranks[*rank];
    t.last_line = number;
    t.last_text = Cut(line);
  }
  if (Has(line, kWatchdogSecondLine)) {
    CompleteWatchdog(line, rank, log);
    return;
  }
  FailureEvent ev;
  if (!ClassifyTorchLine(line, &ev)) return;
  ev.rank = rank;
  ev.line = number;
  ev.text = Cut(line);
  if (const size_t c = FindClock(line); c != std::string_view::npos) {
    const size_t end = line.find_first_of(" ]", c + 11);
    ev.clock = std::string(line.substr(c, (end == std::string_view::npos ? line.size() : end) - c));
    ev.time_ns = ParseLogClock(line.substr(c));
  }
  // A rank reports each failure once: its later copies (stack traces) add nothing.
  for (const FailureEvent& e : log->events) {
    if (e.kind == ev.kind && e.rank == ev.rank && e.rank && e.seq == ev.seq &&
        ev.kind != FailureKind::kSignal) {
      return;
    }
  }
  log->events.push_back(std::move(ev));
}

// torchrun's error.json: {"message": {"message": "...", "extraInfo": {"timestamp": ...}}}.
bool ReadErrorJson(std::string_view text, model::FailureLog* log) {
  if (!Has(text, "\"message\"") || !(Has(text, "extraInfo") || Has(text, "py_callstack"))) {
    return false;
  }
  log->format = "error.json";
  FailureEvent ev;
  ev.kind = FailureKind::kChildFailed;
  ev.line = 1;
  const size_t m = text.find("\"message\": \"");
  const size_t m2 = text.find("\"message\":\"");
  const size_t at =
      m != std::string_view::npos ? m + 12 : (m2 != std::string_view::npos ? m2 + 11 : 0);
  const size_t end = text.find('"', at);
  ev.text = Cut(text.substr(at, end == std::string_view::npos ? 0 : end - at));
  if (auto ts = NumberAfter(text, "\"timestamp\": \"")) ev.time_ns = *ts * 1'000'000'000;
  if (!ev.time_ns) {
    if (auto ts = NumberAfter(text, "\"timestamp\":\"")) ev.time_ns = *ts * 1'000'000'000;
  }
  if (Has(ev.text, "out of memory")) ev.kind = FailureKind::kOutOfMemory;
  log->events.push_back(std::move(ev));
  return true;
}

}  // namespace

std::optional<int64_t> ParseLogClock(std::string_view c) {
  if (c.size() < 19 || !IsDigits(c, 0, 4) || c[4] != '-' || !IsDigits(c, 5, 2) || c[7] != '-' ||
      !IsDigits(c, 8, 2) || !IsDigits(c, 11, 2) || c[13] != ':' || !IsDigits(c, 14, 2) ||
      c[16] != ':' || !IsDigits(c, 17, 2)) {
    return std::nullopt;
  }
  const int64_t month = Num(c, 5, 2);
  const int64_t day = Num(c, 8, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  const int64_t days = DaysFromCivil(Num(c, 0, 4), month, day);
  int64_t ns = ((days * 24 + Num(c, 11, 2)) * 60 + Num(c, 14, 2)) * 60 + Num(c, 17, 2);
  ns *= 1'000'000'000;
  size_t pos = 19;
  if (pos < c.size() && (c[pos] == '.' || c[pos] == ',')) {
    // plog: ".908.424" (ms.us); others: ".123456" / ",123".
    int64_t scale = 100'000'000;
    ++pos;
    while (pos < c.size() && scale > 0) {
      if (std::isdigit(static_cast<unsigned char>(c[pos]))) {
        ns += (c[pos] - '0') * scale;
        scale /= 10;
      } else if (c[pos] != '.') {
        break;
      }
      ++pos;
    }
  }
  return ns;
}

model::FailureLog ParseFailureLog(std::string_view text, const std::string& path) {
  model::FailureLog log;
  log.path = path;
  ReadPathParts(path, &log);
  const std::string_view trimmed =
      text.substr(std::min(text.find_first_not_of(" \t\r\n"), text.size()));
  if (!trimmed.empty() && trimmed[0] == '{' && ReadErrorJson(text, &log)) return log;
  int64_t number = 0;
  size_t pos = 0;
  bool plog = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const PlogLine p = SplitPlog(line);
    if (p.ok && p.clock.size() >= 19 && p.clock[10] == '-') {
      plog = true;
      ReadPlogLine(p, number, line, &log);
      continue;
    }
    ReadTorchLine(line, number, &log);
  }
  log.lines = number;
  if (plog) {
    log.format = Has(path, "/device-") ? "device log" : "plog";
  } else {
    log.format = "c10d log";
  }
  // Ranks named only by failure lines count as ranks the log speaks for.
  for (const FailureEvent& e : log.events) {
    if (e.rank && !log.ranks.count(*e.rank)) {
      log.ranks[*e.rank] = model::RankTrail{e.line, e.text};
    }
  }
  return log;
}

FlightRecorderFile ReadFlightRecorderFile(std::string_view bytes, const std::string& path) {
  FlightRecorderFile out;
  const bool pickle = !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80;
  Result<model::FlightRecorderDump> d =
      pickle ? ParseFlightRecorderPickle(bytes, path) : ParseFlightRecorderJson(bytes, path);
  if (!d.ok()) {
    out.error = d.status().message();
    return out;
  }
  out.dump = std::move(*d);
  return out;
}

namespace {

bool LooksBinary(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  return std::count(head.begin(), head.end(), '\0') > 0;
}

// One file: a dump, a log (of failure lines, of training lines or both),
// or a reason it is none.
struct LoadedFile {
  std::optional<model::FlightRecorderDump> dump;
  std::optional<model::FailureLog> log;
  std::optional<model::TrainingProgress> training;
  std::string not_read;
};

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// How far a training log got, read by `health`'s reader (formats/log):
// per rank its lines name, the last record; nullopt without a record.
std::optional<model::TrainingProgress> TrainingProgressOf(std::string_view bytes,
                                                          const std::string& path) {
  Result<ReadTrainingLog> read = ReadTrainingLogBytes(bytes, IsGzip(bytes), path);
  if (!read.ok() || read->log.records.empty()) return std::nullopt;
  model::TrainingProgress p;
  p.path = path;
  p.format = std::string(model::LogFormatName(read->log.format));
  p.records = static_cast<int64_t>(read->log.records.size());
  for (const model::TrainingRecord& r : read->log.records) p.last_of_rank[r.rank] = r;
  return p;
}

LoadedFile LoadOne(const std::string& path) {
  LoadedFile out;
  Result<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) {
    out.not_read = mapped.status().message();
    return out;
  }
  const std::string_view bytes = mapped->data();
  if (bytes.empty()) {
    out.not_read = "empty file";
    return out;
  }
  const bool pickle = static_cast<unsigned char>(bytes[0]) == 0x80;
  const std::string_view head = bytes.substr(0, 65536);
  const size_t first = head.find_first_not_of(" \t\r\n");
  const bool json_dump = first != std::string_view::npos && head[first] == '{' &&
                         head.find("\"pg_config\"") != std::string_view::npos;
  if (pickle || json_dump) {
    FlightRecorderFile fr = ReadFlightRecorderFile(bytes, path);
    if (fr.dump) {
      out.dump = std::move(fr.dump);
    } else {
      out.not_read = fr.error;
    }
    return out;
  }
  if (IsGzip(bytes)) {  // a compressed training log
    out.training = TrainingProgressOf(bytes, path);
    if (!out.training) out.not_read = "gzip, but no training line in it";
    return out;
  }
  if (LooksBinary(bytes)) {
    out.not_read = "binary, not a log or a dump";
    return out;
  }
  model::FailureLog log = ParseFailureLog(bytes, path);
  out.training = TrainingProgressOf(bytes, path);
  if (log.events.empty() && log.ranks.empty() && !log.identity && !log.finished) {
    if (!out.training) {
      out.not_read =
          fmt::format("no failure, rank, HCCL or training line in {} line(s)", log.lines);
    }
    return out;
  }
  out.log = std::move(log);
  return out;
}

}  // namespace

model::TriageInputs LoadTriageInputs(const std::vector<std::string>& paths, unsigned threads) {
  namespace fs = std::filesystem;
  model::TriageInputs in;
  std::vector<std::string> files;
  for (const std::string& arg : paths) {
    std::error_code ec;
    if (!fs::is_directory(arg, ec)) {
      if (!fs::exists(arg, ec)) {
        in.not_read.push_back({arg, "no such file or directory"});
        continue;
      }
      files.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    WalkDirectory(
        arg,
        [&](const fs::directory_entry& entry) {
          std::error_code e2;
          const fs::file_status link = entry.symlink_status(e2);
          if (!e2 && fs::is_directory(link)) return true;
          if (!e2 && entry.is_regular_file(e2)) {
            found.push_back(entry.path().string());
          } else {
            in.not_read.push_back({entry.path().string(), "not a regular file"});
          }
          return false;
        },
        [&](const fs::path& dir, DirWalkProblem what, const std::error_code& e) {
          in.not_read.push_back(
              {dir.string(),
               fmt::format("{}: {}",
                           what == DirWalkProblem::kCannotList ? "cannot list" : "listing stopped",
                           e.message())});
        });
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  in.files_seen = static_cast<int64_t>(files.size());
  std::vector<LoadedFile> loaded(files.size());
  ParallelFor(files.size(), ClampThreads(threads),
              [&](size_t i) { loaded[i] = LoadOne(files[i]); });
  for (size_t i = 0; i < files.size(); ++i) {
    LoadedFile& f = loaded[i];
    if (f.dump) {
      in.dumps.push_back(std::move(*f.dump));
    } else if (f.log || f.training) {
      if (f.log) in.logs.push_back(std::move(*f.log));
      if (f.training) in.training.push_back(std::move(*f.training));
    } else {
      in.not_read.push_back({files[i], f.not_read});
    }
  }
  return in;
}

}  // namespace trainscope::formats
