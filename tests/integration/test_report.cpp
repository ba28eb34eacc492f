// orchestrate report, opened in a real headless Chromium (Debian's chromium, installed by
// scripts/install-deps.sh): the page loads without console errors, its script ran, and a
// screenshot shows the charts. The page is also checked for what would need a network.
#include <doctest/doctest.h>

#include <random>

#include "harness.hpp"
#include "nightly_runs.hpp"

using namespace isobench::testing;

namespace {

std::string chromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(candidate)) return candidate;
  return {};
}

// Headless, as root in CI (no sandbox), no GPU, a fresh profile; console messages on stderr.
std::string browser(const Scratch& s) {
  return chromium() + " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" + s.path("profile") +
         " --enable-logging=stderr --v=0 --window-size=1280,2400 ";
}

}  // namespace

TEST_CASE("report: the history's series and an A/B run's verdicts, in headless Chromium without console errors") {
  REQUIRE_MESSAGE(!chromium().empty(), "no chromium: scripts/install-deps.sh installs Debian's chromium");
  Scratch s("report");
  std::mt19937_64 engine(2026);
  std::string runs;
  for (int night = 0; night < 30; ++night) {
    const std::string name = "night" + std::to_string(night);
    write_run(s, name, night, engine);
    runs += ' ';
    runs += s.path(name);  // appended, not "literal" + string&&: GCC 12's -Wrestrict false positive
  }
  const std::string h = " --history " + s.path("h.sqlite");
  REQUIRE(run(bin("orchestrate") + " history add" + h + runs, s).exit_code == 0);
  // inner: auto, the default: the run's calibration.json of inner counts is no calibration folder.
  s.write("tiny.yaml", "name: tiny\nsettings: {samples: 4, warmup: 1, inner: auto, min_sample_time_ms: 1, "
                       "isolation: process, per: batch}\n"
                       "benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: [4096, 65536]}\n");
  REQUIRE(run(bin("orchestrate") + " ab --quiet --fail-on never --out " + s.path("ab") + " --baseline " + bin("isobench-worker") +
                  " --candidate " + bin("isobench-worker") + " " + s.path("tiny.yaml"),
              s)
              .exit_code <= 1);
  const Result report = run(bin("orchestrate") + " report --out " + s.path("report") + h + " " + s.path("ab"), s);
  REQUIRE(report.exit_code == 0);
  const std::string page = slurp(s.path("report/index.html"));
  CHECK(page.find("<svg") != std::string::npos);
  CHECK(page.find("% SLOWER</text>") != std::string::npos);  // the change point's marker
  CHECK(page.find("cpu_copy[bytes=65536]") != std::string::npos);  // the A/B verdict table
  CHECK(page.find("Calibration: ") == std::string::npos);
  CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  CHECK(page.find("https://") == std::string::npos);

  const std::string url = " file://" + s.path("report/index.html");
  const Result dom = run(browser(s) + "--dump-dom" + url, s);
  REQUIRE(dom.exit_code == 0);
  CHECK(dom.out.find("data-series=\"2\"") != std::string::npos);  // the script ran over both series
  CHECK(dom.out.find("cpu_copy[bytes=4096]") != std::string::npos);  // the verdict table, rendered
  CHECK(dom.err.find(":CONSOLE(") == std::string::npos);          // nothing on the console
  CHECK(dom.err.find("Uncaught") == std::string::npos);
  const Result shot = run(browser(s) + "--screenshot=" + s.path("report.png") + url, s);
  REQUIRE(shot.exit_code == 0);
  REQUIRE(std::filesystem::exists(s.path("report.png")));
  const std::string png = slurp(s.path("report.png"));
  CHECK(png.substr(1, 3) == "PNG");
  CHECK(png.size() > 20000);  // charts and tables, not a blank page (a blank 1280x2400 PNG is a few KB)
  if (const char* keep = std::getenv("ISOBENCH_KEEP_REPORT"))  // docs/history.md's screenshot
    std::filesystem::copy(s.path("report.png"), keep, std::filesystem::copy_options::overwrite_existing);

  const Result bad = run(bin("orchestrate") + " report --out " + s.path("bad") + " " + s.path("nothing"), s);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("nothing") != std::string::npos);
  CHECK(!std::filesystem::exists(s.path("bad/index.html")));
}
