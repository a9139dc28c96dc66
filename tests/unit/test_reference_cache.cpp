// The reference cache under faults: every fault costs a recomputation and one line, never a
// result. Entries are ref::Bounded values of a real Tracked evaluation.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/reference_cache.hpp"
#include "support/lookup.hpp"
#include "support/temp_folder_test.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;

using testing::case_named;

class ReferenceCacheTest : public TempFolderTest {
 protected:
  // One bounded evaluation through `cache`; `computed` counts the evaluations it made.
  ref::Bounded bounds(ReferenceCache* cache, int& computed) const {
    CacheKeyBuilder key("test bounded");
    key.add(data_.cache_id);
    for (const HostTensor& t : data_.inputs) key.add(t);
    return cached<ref::Bounded>(cache, key, Phase::bounds, [&] {
      ++computed;
      return ref::bounded_evaluate(data_.call, data_.ref_inputs, data_.ref_cotangent, nullptr);
    });
  }
  // The single entry file the tests write.
  fs::path entry() const {
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.path().extension() == ".bin") return e.path();
    return {};
  }
  std::string read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write(const fs::path& p, const std::string& bytes) const { std::ofstream(p, std::ios::binary) << bytes; }

  ReferenceData data_ = prepare_reference(case_named("layer_norm(eps=1e-05,shape=16x33|33|33,dtype=f32)"), 1);
};

void expect_same(const ref::Bounded& a, const ref::Bounded& b) {
  EXPECT_EQ(a.output.v, b.output.v);
  ASSERT_EQ(a.output.err.size(), b.output.err.size());
  for (std::size_t i = 0; i < a.output.err.size(); ++i) {
    EXPECT_EQ(a.output.err[i].det, b.output.err[i].det);
    EXPECT_EQ(a.output.err[i].acc, b.output.err[i].acc);
    EXPECT_EQ(a.output.err[i].prob, b.output.err[i].prob);
    EXPECT_EQ(a.output.err[i].spec, b.output.err[i].spec);
  }
  ASSERT_EQ(a.grads.size(), b.grads.size());
  for (std::size_t k = 0; k < a.grads.size(); ++k) EXPECT_EQ(a.grads[k].v, b.grads[k].v);
}

TEST_F(ReferenceCacheTest, SecondLookUpReadsWhatTheFirstComputedBitForBit) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  int computed = 0;
  const ref::Bounded first = bounds(&cache, computed);
  const ref::Bounded second = bounds(&cache, computed);
  EXPECT_EQ(computed, 1);
  expect_same(first, second);
  EXPECT_EQ(cache.counts().hits, 1);
  EXPECT_EQ(cache.counts().stored, 1);
}

// Each fault: the entry is recomputed (the same bits as without a cache), one line says which
// entry and why, and the entry is written again whole.
TEST_F(ReferenceCacheTest, FaultyEntriesAreRecomputedWithOneLine) {
  int computed = 0;
  const ref::Bounded plain = bounds(nullptr, computed);
  const std::vector<std::pair<std::string, std::function<void(std::string&)>>> faults = {
      {"truncated", [](std::string& f) { f.resize(f.size() / 2); }},
      {"written by a build of other sources", [](std::string& f) { f[8] = f[8] == 'a' ? 'b' : 'a'; }},
      {"checksum mismatch", [](std::string& f) { f[f.size() / 2] ^= 0x10; }},
      {"truncated", [](std::string& f) { f.clear(); }},
  };
  for (const auto& [why, damage] : faults) {
    ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
    bounds(&cache, computed);  // written (or already there)
    std::string bytes = read(entry());
    damage(bytes);
    write(entry(), bytes);
    computed = 0;
    ::testing::internal::CaptureStderr();
    const ref::Bounded again = bounds(&cache, computed);
    const std::string said = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(computed, 1) << why;
    expect_same(plain, again);
    EXPECT_NE(said.find(why), std::string::npos) << said;
    EXPECT_NE(said.find("; recomputed"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    computed = 0;
    expect_same(plain, bounds(&cache, computed));  // rewritten whole: read back now
    EXPECT_EQ(computed, 0) << why;
  }
}

// Two runs store one entry while a third reads it: the reader finds it absent or whole, never
// half written (no fault line), and no temporary file stays behind.
TEST_F(ReferenceCacheTest, TwoRunsWritingOneEntryAtOnceLeaveAWholeEntry) {
  int computed = 0;
  const ref::Bounded plain = bounds(nullptr, computed);
  CacheKeyBuilder key("test bounded");
  key.add(data_.cache_id);
  for (const HostTensor& t : data_.inputs) key.add(t);
  BlobWriter w;
  encode(w, plain);
  std::atomic<bool> writing{true};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t)
    writers.emplace_back([&] {
      ReferenceCache run(dir_, kDefaultReferenceCacheCap);  // a run of its own
      for (int i = 0; i < 200; ++i) run.store(key.key(), w.bytes());
    });
  ReferenceCache reader(dir_, kDefaultReferenceCacheCap);
  std::thread reading([&] {
    while (writing) reader.load(key.key());
  });
  ::testing::internal::CaptureStderr();
  for (auto& t : writers) t.join();
  writing = false;
  reading.join();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(reader.counts().rejected, 0);
  EXPECT_GT(reader.counts().hits, 0);
  computed = 0;
  expect_same(plain, bounds(&reader, computed));
  EXPECT_EQ(computed, 0);
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
}

// As root a mode of 0555 stops nobody: the folder is made unwritable by a file in its place.
TEST_F(ReferenceCacheTest, AnUnwritableFolderComputesEverythingAndSaysSoOnce) {
  fs::create_directories(dir_.parent_path());
  write(dir_, "a file where the cache folder should be");
  ReferenceCache cache(dir_ / "reference", kDefaultReferenceCacheCap);
  int computed = 0;
  const ref::Bounded plain = bounds(nullptr, computed);
  computed = 0;
  ::testing::internal::CaptureStderr();
  expect_same(plain, bounds(&cache, computed));
  expect_same(plain, bounds(&cache, computed));
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(computed, 2);
  EXPECT_NE(said.find("the reference cache cannot store entries"), std::string::npos) << said;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  fs::remove(dir_);
}

TEST_F(ReferenceCacheTest, TheFolderStaysUnderItsCap) {
  int computed = 0;
  ReferenceCache cache(dir_, 1);  // every entry exceeds the cap: the least recently used go
  for (int seed = 1; seed <= 3; ++seed) {
    data_ = prepare_reference(case_named("layer_norm(eps=1e-05,shape=16x33|33|33,dtype=f32)"), seed);
    bounds(&cache, computed);
  }
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_LE(files, 1u);
  EXPECT_EQ(computed, 3);
}

}  // namespace
}  // namespace gp
