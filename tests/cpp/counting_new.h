// A replacement of the global operator new that counts every call, for
// tests of how many heap allocations a piece of code makes. The library's
// objects are linked into the test executable, so their allocations are
// counted too. Include in exactly one source file of an executable (it
// defines the replacement functions). Under valgrind, pass
// --soname-synonyms=somalloc=nouserintercepts (the replaced operator new
// is then left alone).
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace tsr::heap_count {

inline std::atomic<long> g_news{0};

// How many times operator new ran during f().
template <class F>
long news_during(F&& f) {
  const long before = g_news.load();
  f();
  return g_news.load() - before;
}

}  // namespace tsr::heap_count

// GCC may see operator new and delete inlined into one function and warn
// that memory from new goes to free: here both are malloc/free.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  tsr::heap_count::g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
