// How the CUDA graph timer splits a sample's launches into replays of one smaller graph
// (worker/timer.hpp, GraphChunks): the arithmetic is host code, checked here without a GPU;
// test_cuda_kernels times it on one.
#include <doctest/doctest.h>

#include <climits>

#include "ipc/instance_table.hpp"
#include "worker/timer.hpp"

using namespace isobench::worker;

namespace {

TimerOptions graph(int inner, int chunk) {
  TimerOptions o;
  o.timer = "graph";
  o.inner = inner;
  o.graph_chunk = chunk;
  return o;
}

}  // namespace

TEST_CASE("graph chunks: R = ceil(inner / chunk) replays of ceil(inner / R) launches") {
  const GraphChunks c = graph_chunks(graph(100, 16));
  CHECK(c.replays == 7);
  CHECK(c.graph_launches == 15);
  CHECK(c.launches() == 105);
  CHECK(c.chunked());

  const GraphChunks python = graph_chunks(graph(7300, 1024));
  CHECK(python.replays == 8);
  CHECK(python.graph_launches == 913);
  CHECK(python.launches() == 7304);

  // An exact multiple makes exactly inner launches.
  CHECK(graph_chunks(graph(4096, 1024)).graph_launches == 1024);
  CHECK(graph_chunks(graph(4096, 1024)).launches() == 4096);

  // At least inner launches, fewer than inner + R, never more than the chunk per graph.
  for (int inner : {1, 2, 17, 1000, 1025, 2049, 99991})
    for (int chunk : {1, 3, 16, 1024}) {
      CAPTURE(inner);
      CAPTURE(chunk);
      const GraphChunks g = graph_chunks(graph(inner, chunk));
      CHECK(g.graph_launches <= chunk);
      CHECK(g.graph_launches >= 1);
      CHECK(g.launches() >= inner);
      CHECK(g.launches() < inner + g.replays);
    }
  // Near INT_MAX the arithmetic does not overflow.
  const GraphChunks huge = graph_chunks(graph(INT_MAX, 1 << 30));
  CHECK(huge.replays == 2);
  CHECK(huge.launches() >= INT_MAX);
}

TEST_CASE("graph chunks: one graph of all inner launches where chunking does not apply") {
  auto unchunked = [](const TimerOptions& o) {
    const GraphChunks c = graph_chunks(o);
    CHECK_FALSE(c.chunked());
    CHECK(c.graph_launches == o.inner);
    CHECK(c.launches() == o.inner);
    CHECK(graph_chunks_note(c, o.inner).empty());
  };
  unchunked(graph(100, 0));     // 0: capture all
  unchunked(graph(100, 100));   // inner fits one chunk
  unchunked(graph(100, 5000));
  TimerOptions events = graph(100, 16);
  events.timer = "events";
  unchunked(events);
  TimerOptions min = graph(100, 16);
  min.statistic = SampleStatistic::min;  // events between launches: one graph of them all
  unchunked(min);
  TimerOptions cold = graph(100, 16);
  cold.cold_launches = true;
  unchunked(cold);
}

TEST_CASE("graph chunks: the note names the graph's launches and the replays") {
  const GraphChunks c = graph_chunks(graph(100, 16));
  const std::string note = graph_chunks_note(c, 100);
  CHECK(note.find("graph of 15 launches replayed 7 times per sample") != std::string::npos);
  CHECK(note.find("105 launches for inner 100") != std::string::npos);
}

TEST_CASE("graph chunk: the instance table carries it to the worker's measure settings") {
  isobench::ipc::MeasureSettings m;
  CHECK(m.graph_chunk == isobench::ipc::kDefaultGraphChunk);
  m.graph_chunk = 48;
  const auto json = isobench::ipc::instance_table_json(m);
  CHECK(json.at("graph_chunk") == 48);
  CHECK(isobench::ipc::instance_table_settings(json).graph_chunk == 48);
  // An instance table from before the setting: one graph of all launches, as it measured.
  auto old = json;
  old.erase("graph_chunk");
  CHECK(isobench::ipc::instance_table_settings(old).graph_chunk == 0);
  old["graph_chunk"] = -1;
  CHECK_THROWS_WITH(isobench::ipc::instance_table_settings(old), doctest::Contains("graph_chunk"));
}
