// The simulated device itself: what the caching allocator's tests rely on.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "simdev/simulated_device.h"

using tsr::Stream;
using tsr::simdev::kSimPageGranularity;
using tsr::simdev::SimulatedDevice;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

class SimDeviceTest : public ::testing::Test {
 protected:
  SimulatedDevice sim{2, 64 * kMiB};
  Stream s0 = sim.stream(0, 0);

  void TearDown() override { EXPECT_TRUE(sim.violations().empty()); }

  void* segment(size_t bytes, int32_t index = 0) {
    std::string why;
    void* p = sim.allocate_segment(index, bytes, &why);
    EXPECT_NE(p, nullptr) << why;
    return p;
  }
};

TEST_F(SimDeviceTest, TypeAndCount) {
  EXPECT_EQ(int(sim.type()), 12);
  EXPECT_EQ(sim.device_count(), 2);
  EXPECT_EQ(sim.page_granularity(0), 2 * kMiB);
  auto info = sim.memory_info(1);
  EXPECT_EQ(info.total_bytes, 64 * kMiB);
  EXPECT_EQ(info.free_bytes, 64 * kMiB);
}

// Device memory is PROT_NONE: a direct host read crashes, as on a GPU.
TEST_F(SimDeviceTest, HostReadOfDeviceMemoryFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the device has worker threads
  auto* p = static_cast<volatile char*>(segment(2 * kMiB));
  EXPECT_DEATH({ char c = p[100]; (void)c; }, "");
  EXPECT_DEATH({ p[0] = 1; }, "");
  sim.release_segment(0, const_cast<char*>(p), 2 * kMiB);
}

TEST_F(SimDeviceTest, CopiesRoundTrip) {
  void* d = segment(4096 * 3);
  void* d2 = segment(4096 * 3);
  std::vector<char> in(10000), out(10000, 0), out2(10000, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = char(i * 7 + 3);
  char* dc = static_cast<char*>(d);
  // Unaligned, spanning pages.
  sim.copy_host_to_device(dc + 100, in.data(), in.size(), s0);
  sim.copy_device_to_host(out.data(), dc + 100, in.size(), s0);
  sim.copy_device_to_device(d2, dc + 100, in.size(), s0);
  sim.copy_device_to_host(out2.data(), d2, in.size(), s0);
  sim.synchronize_stream(s0);
  EXPECT_EQ(in, out);
  EXPECT_EQ(in, out2);
  sim.fill(dc + 5, 0xAB, 10, s0);
  char back[20];
  sim.copy_device_to_host(back, dc, 20, s0);
  sim.synchronize_stream(s0);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(uint8_t(back[i]), i >= 5 && i < 15 ? 0xAB : 0) << i;  // the rest never written
  EXPECT_EQ(sim.counters().copies, 6);
  sim.release_segment(0, d, 4096 * 3);
  sim.release_segment(0, d2, 4096 * 3);
}

TEST_F(SimDeviceTest, CopyOutsideDeviceMemoryThrows) {
  void* d = segment(512);
  char buf[1024];
  try {
    sim.copy_host_to_device(d, buf, 1024, s0);  // past the segment's end
    FAIL() << "expected a throw";
  } catch (const tsr::Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_INVALID_ARGUMENT);
  }
  EXPECT_THROW(sim.copy_device_to_host(buf, buf, 8, s0), tsr::Error);
  sim.release_segment(0, d, 512);
}

TEST_F(SimDeviceTest, CapacityRefusesDeterministically) {
  void* a = segment(40 * kMiB);
  std::string why;
  EXPECT_EQ(sim.allocate_segment(0, 30 * kMiB, &why), nullptr);
  EXPECT_NE(why.find("simulated device out of memory"), std::string::npos) << why;
  EXPECT_EQ(sim.memory_info(0).free_bytes, 24 * kMiB);
  EXPECT_EQ(sim.memory_info(1).free_bytes, 64 * kMiB);  // per device
  void* b = segment(24 * kMiB);
  EXPECT_EQ(sim.memory_info(0).free_bytes, 0u);
  sim.release_segment(0, a, 40 * kMiB);
  void* c = segment(30 * kMiB);
  auto n = sim.counters();
  EXPECT_EQ(n.segments_allocated, 3);
  EXPECT_EQ(n.segment_refusals, 1);
  EXPECT_EQ(n.segments_released, 1);
  EXPECT_EQ(sim.live_segments(0), 2u);
  sim.release_segment(0, b, 24 * kMiB);
  sim.release_segment(0, c, 30 * kMiB);
  EXPECT_EQ(sim.used_bytes(0), 0u);
  // Capacity can change under a test (to force OOM after setup).
  sim.set_capacity(0, kMiB);
  EXPECT_EQ(sim.allocate_segment(0, 2 * kMiB, &why), nullptr);
}

// Not a fixture test: the fixture's TearDown expects no violations.
TEST(SimDeviceMisuse, BadReleaseIsRecordedNotFatal) {
  SimulatedDevice sim(1, 8 * kMiB);
  int x;
  sim.release_segment(0, &x, 512);
  std::string why;
  void* p = sim.allocate_segment(0, 1024, &why);
  sim.release_segment(0, p, 512);  // wrong size
  sim.release_segment(0, p, 1024);
  auto v = sim.violations();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("release_segment"), std::string::npos);
  EXPECT_EQ(sim.allocate_segment(0, 100, &why), nullptr);  // not a multiple of 512
  EXPECT_EQ(sim.violations().size(), 3u);
}

TEST_F(SimDeviceTest, StreamsRunInOrder) {
  int64_t a = sim.create_stream(0), b = sim.create_stream(0);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(sim.create_stream(1), 1);  // ids per device
  Stream s = sim.stream(0, a);
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) sim.launch(s, [&order, i] { order.push_back(i); });
  sim.synchronize_stream(s);
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
  sim.destroy_stream(s);
  EXPECT_THROW(sim.launch(s, [] {}), tsr::Error);
}

TEST_F(SimDeviceTest, HoldStopsWorkUntilRelease) {
  Stream s = sim.stream(0, sim.create_stream(0));
  sim.hold(s);
  std::atomic<int> ran{0};
  sim.launch(s, [&] { ++ran; });
  sim.launch(s, [&] { ++ran; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ran.load(), 0);
  EXPECT_FALSE(sim.query_stream(s));
  EXPECT_EQ(sim.pending(s), 2u);
  // Synchronizing on a held stream would never return: a test bug, thrown.
  try {
    sim.synchronize_stream(s);
    FAIL() << "expected a throw";
  } catch (const tsr::Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_INTERNAL);
    EXPECT_NE(std::string(e.what()).find("held"), std::string::npos);
  }
  EXPECT_THROW(sim.synchronize_device(0), tsr::Error);
  sim.release(s);
  sim.synchronize_stream(s);
  EXPECT_EQ(ran.load(), 2);
  EXPECT_TRUE(sim.query_stream(s));
  // Other streams are not held by s's hold.
  sim.hold(s);
  sim.launch(s0, [&] { ++ran; });
  sim.synchronize_stream(s0);
  EXPECT_EQ(ran.load(), 3);
  sim.synchronize_stream(s);  // held but nothing left: returns
  sim.release(s);
}

TEST_F(SimDeviceTest, HoldDuringSynchronizeThrowsInsteadOfHanging) {
  Stream s = sim.stream(0, sim.create_stream(0));
  std::atomic<bool> go{false};
  sim.launch(s, [&] { while (!go) std::this_thread::yield(); });
  sim.launch(s, [] {});
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sim.hold(s);  // the second item is not reached
    go = true;
  });
  EXPECT_THROW(sim.synchronize_stream(s), tsr::Error);
  t.join();
  sim.release(s);
  sim.synchronize_stream(s);
}

TEST_F(SimDeviceTest, EventsCompleteWhenTheStreamReachesThem) {
  Stream s = sim.stream(0, sim.create_stream(0));
  tsr::EventHandle e = sim.create_event(0, false);
  EXPECT_TRUE(sim.query_event(e));  // never recorded: complete, as CUDA
  sim.hold(s);
  sim.launch(s, [] {});
  sim.record_event(e, s);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(sim.query_event(e));
  EXPECT_FALSE(sim.query_event(e));
  EXPECT_THROW(sim.synchronize_event(e), tsr::Error);  // held: would hang
  sim.release(s);
  sim.synchronize_event(e);
  EXPECT_TRUE(sim.query_event(e));
  auto n = sim.counters();
  EXPECT_EQ(n.event_queries, 4);
  EXPECT_EQ(n.event_synchronizes, 2);
  EXPECT_EQ(n.events_recorded, 1);
  // Re-recording: the newest recording decides.
  sim.hold(s);
  sim.record_event(e, s);
  EXPECT_FALSE(sim.query_event(e));
  sim.record_event(e, s0);  // s0 runs: the newest recording completes
  sim.synchronize_stream(s0);
  EXPECT_TRUE(sim.query_event(e));
  sim.release(s);
  sim.destroy_event(e);
  EXPECT_EQ(sim.live_events(), 0u);
}

TEST_F(SimDeviceTest, EventDestroyedWhileMarkerQueued) {
  Stream s = sim.stream(0, sim.create_stream(0));
  sim.hold(s);
  tsr::EventHandle e = sim.create_event(0, false);
  sim.record_event(e, s);
  sim.destroy_event(e);
  sim.release(s);
  sim.synchronize_stream(s);  // the marker runs on a dead handle's state: fine
  EXPECT_EQ(sim.counters().events_destroyed, 1);
}

TEST_F(SimDeviceTest, ElapsedTimeFromMarkerStamps) {
  Stream s = sim.stream(0, sim.create_stream(0));
  tsr::EventHandle a = sim.create_event(0, true), b = sim.create_event(0, true);
  tsr::EventHandle plain = sim.create_event(0, false);
  sim.record_event(a, s);
  sim.launch(s, [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  sim.record_event(b, s);
  sim.record_event(plain, s);
  sim.synchronize_event(b);
  double ms = sim.elapsed_ms(a, b);
  EXPECT_GE(ms, 29.0);
  EXPECT_LT(ms, 5000.0);
  sim.synchronize_stream(s);
  EXPECT_THROW(sim.elapsed_ms(a, plain), tsr::Error);  // no timing
  for (auto e : {a, b, plain}) sim.destroy_event(e);
}

TEST_F(SimDeviceTest, EventOfOtherDeviceRejected) {
  tsr::EventHandle e = sim.create_event(1, false);
  EXPECT_THROW(sim.record_event(e, s0), tsr::Error);
  sim.destroy_event(e);
}

TEST_F(SimDeviceTest, StreamQueryAndSynchronizeCounted) {
  Stream s = sim.stream(0, sim.create_stream(0));
  EXPECT_TRUE(sim.query_stream(s));
  sim.synchronize_stream(s);
  sim.synchronize_device(0);
  auto n = sim.counters();
  EXPECT_EQ(n.stream_queries, 1);
  EXPECT_EQ(n.stream_synchronizes, 1);
  EXPECT_EQ(n.device_synchronizes, 1);
  EXPECT_EQ(n.streams_created, 1);
  sim.reset_counters();
  EXPECT_EQ(sim.counters().stream_queries, 0);
}

// Destroying a held stream lets its work finish (cudaStreamDestroy does).
TEST_F(SimDeviceTest, DestroyHeldStreamDrainsIt) {
  Stream s = sim.stream(0, sim.create_stream(0));
  sim.hold(s);
  std::atomic<int> ran{0};
  sim.launch(s, [&] { ++ran; });
  tsr::EventHandle e = sim.create_event(0, false);
  sim.record_event(e, s);
  sim.destroy_stream(s);
  EXPECT_EQ(ran.load(), 1);
  EXPECT_TRUE(sim.query_event(e));
  sim.synchronize_event(e);
  sim.destroy_event(e);
}

TEST_F(SimDeviceTest, ExpandableMapUnmapAccounting) {
  const size_t G = kSimPageGranularity;
  // Address space is free: far more than the capacity.
  char* base = static_cast<char*>(sim.reserve_address_space(0, 1024 * G));
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(base) % G, 0u);
  EXPECT_EQ(sim.used_bytes(0), 0u);
  std::string why;
  ASSERT_TRUE(sim.map_pages(0, base, 3 * G, &why)) << why;
  EXPECT_EQ(sim.used_bytes(0), 3 * G);
  EXPECT_EQ(sim.memory_info(0).free_bytes, 64 * kMiB - 3 * G);
  EXPECT_TRUE(sim.is_device_memory(0, base + G, G));
  EXPECT_FALSE(sim.is_device_memory(0, base + 3 * G, 1));
  // Over capacity: 29 pages left of 32.
  EXPECT_FALSE(sim.map_pages(0, base + 3 * G, 30 * G, &why));
  EXPECT_NE(why.find("simulated device out of memory"), std::string::npos);
  ASSERT_TRUE(sim.map_pages(0, base + 3 * G, 29 * G, &why)) << why;
  EXPECT_EQ(sim.memory_info(0).free_bytes, 0u);
  // Copies work on mapped pages and across page boundaries.
  std::vector<char> in(G + 100, 'x'), out(G + 100, 0);
  Stream s = s0;
  sim.copy_host_to_device(base + G - 50, in.data(), in.size(), s);
  sim.copy_device_to_host(out.data(), base + G - 50, in.size(), s);
  sim.synchronize_stream(s);
  EXPECT_EQ(in, out);
  sim.unmap_pages(0, base + 30 * G, 2 * G);
  sim.unmap_pages(0, base, G);
  EXPECT_EQ(sim.used_bytes(0), 29 * G);
  // Not mapped any more: a copy there is refused.
  EXPECT_THROW(sim.copy_host_to_device(base, in.data(), 10, s), tsr::Error);
  // Remapped pages come back zeroed (the old physical memory is gone).
  ASSERT_TRUE(sim.map_pages(0, base, G, &why)) << why;
  char z[4] = {1, 1, 1, 1};
  sim.copy_device_to_host(z, base + G - 50, 4, s);  // written above, in page 0
  sim.synchronize_stream(s);
  for (char c : z) EXPECT_EQ(c, 0);
  auto n = sim.counters();
  EXPECT_EQ(n.reservations, 1);
  EXPECT_EQ(n.pages_mapped, 3 + 29 + 1);
  EXPECT_EQ(n.pages_unmapped, 3);
  EXPECT_EQ(n.map_refusals, 1);
  sim.unmap_pages(0, base, 30 * G);
  sim.release_address_space(0, base, 1024 * G);
  EXPECT_EQ(sim.used_bytes(0), 0u);
  EXPECT_EQ(sim.counters().reservations_released, 1);
}

TEST_F(SimDeviceTest, ManyThreadsLaunchAndQuery) {
  Stream s = sim.stream(0, sim.create_stream(0));
  std::atomic<int> ran{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        sim.launch(s, [&] { ++ran; });
        tsr::EventHandle e = sim.create_event(0, false);
        sim.record_event(e, s);
        sim.query_event(e);
        sim.destroy_event(e);
      }
    });
  for (auto& t : ts) t.join();
  sim.synchronize_stream(s);
  EXPECT_EQ(ran.load(), 800);
  EXPECT_EQ(sim.live_events(), 0u);
}

// Work queued at destruction runs; no thread or memory outlives the device.
TEST(SimDeviceLifetime, DestructorJoinsAndFrees) {
  std::atomic<int> ran{0};
  {
    SimulatedDevice sim(1, 8 * kMiB);
    Stream s = sim.stream(0, sim.create_stream(0));
    sim.hold(s);
    sim.launch(s, [&] { ++ran; });
    std::string why;
    EXPECT_NE(sim.allocate_segment(0, 2 * kMiB, &why), nullptr);  // left for the destructor
    EXPECT_NE(sim.reserve_address_space(0, 4 * kMiB), nullptr);
  }
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
