#include "core/bus_fault.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace trainscope {
namespace {

struct MappingSlot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};

constexpr size_t kMappingSlots = 1024;
std::array<MappingSlot, kMappingSlots> g_slots;
std::atomic<uintptr_t> g_page_mask{0};
struct sigaction g_previous {};

thread_local int t_scope_depth = 0;
thread_local bool t_scope_faulted = false;

// Maps a page of zeros over the page holding |address|.
bool ZeroPageAt(void* address) {
  const uintptr_t mask = g_page_mask.load(std::memory_order_relaxed);
  void* page = static_cast<char*>(address) - (reinterpret_cast<uintptr_t>(address) & mask);
  return ::mmap(page, mask + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
         MAP_FAILED;
}

bool ServeFault(const siginfo_t* info) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (MappingSlot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= slot.end.load(std::memory_order_acquire)) {
      continue;
    }
    if (!ZeroPageAt(info->si_addr)) return false;
    slot.faulted.store(true, std::memory_order_release);
    return true;
  }
  if (t_scope_depth > 0 && info->si_code == BUS_ADRERR && ZeroPageAt(info->si_addr)) {
    t_scope_faulted = true;
    return true;
  }
  return false;
}

void OnSigbus(int signal, siginfo_t* info, void* context) {
  if (ServeFault(info)) return;
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(signal);
    return;
  }
  // Not ours: the default action (the access faults again and kills).
  ::signal(SIGBUS, SIG_DFL);
}

void InstallHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    g_page_mask.store(static_cast<uintptr_t>(page > 0 ? page : 4096) - 1);
    struct sigaction action {};
    action.sa_sigaction = OnSigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous);
  });
}

}  // namespace

int RegisterFileMapping(const void* begin, size_t size) {
  if (begin == nullptr || size == 0) return -1;
  InstallHandler();
  const auto start = reinterpret_cast<uintptr_t>(begin);
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  for (size_t i = 0; i < g_slots.size(); ++i) {
    MappingSlot& slot = g_slots[i];
    if (slot.begin.load(std::memory_order_acquire) != 0) continue;
    // The end and the flag first, then the begin that makes the slot live.
    slot.faulted.store(false, std::memory_order_relaxed);
    slot.end.store(start + size, std::memory_order_release);
    slot.begin.store(start, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void UnregisterFileMapping(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= g_slots.size()) return;
  g_slots[static_cast<size_t>(slot)].begin.store(0, std::memory_order_release);
}

bool FileMappingFaulted(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= g_slots.size()) return false;
  return g_slots[static_cast<size_t>(slot)].faulted.load(std::memory_order_acquire);
}

BusFaultScope::BusFaultScope() {
  InstallHandler();
  if (t_scope_depth++ == 0) t_scope_faulted = false;
}

BusFaultScope::~BusFaultScope() { --t_scope_depth; }

bool BusFaultScope::FaultedInThisThread() { return t_scope_depth > 0 && t_scope_faulted; }

}  // namespace trainscope
