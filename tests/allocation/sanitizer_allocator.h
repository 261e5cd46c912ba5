// Whether a sanitizer's allocator replaces malloc and operator new in this
// build (ASan, TSan): the executable's allocation policy is then moot and
// its tests skip.
#pragma once

namespace trainscope::testing {

constexpr bool SanitizerAllocator() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace trainscope::testing
