// A bimodal instance is flagged in summary.json and by every printer's summary, not averaged
// over silently; a unimodal one is not.

#include <doctest/doctest.h>

#include <sstream>
#include <vector>

#include "orchestrator/printers/printer.hpp"
#include "orchestrator/summary.hpp"
#include "stats/bimodality.hpp"

using namespace isobench::orchestrator;

namespace {

std::vector<InstanceSummary> rows() {
  InstanceSummary split, plain;
  split.id = "rmsnorm[rows=64,hidden=4096]";
  split.n = 15;
  split.median = 148.9e-6;
  split.modes = isobench::stats::bimodality(std::vector<double>{
      132.1e-6, 148.9e-6, 131.8e-6, 152.3e-6, 132.4e-6, 149.6e-6, 133.0e-6, 154.1e-6, 131.9e-6, 150.2e-6, 132.6e-6,
      148.2e-6, 132.2e-6, 153.4e-6, 151.0e-6});
  plain.id = "cast[n=1048576]";
  plain.n = 15;
  plain.median = 10e-6;
  plain.modes = isobench::stats::bimodality(std::vector<double>{10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 9.95});
  return {split, plain};
}

std::string print(Format f) {
  std::ostringstream out;
  make_printer(f)->summary(out, rows());
  return out.str();
}

}  // namespace

TEST_CASE("the bimodal instance is flagged in every format, the unimodal one nowhere") {
  REQUIRE(rows()[0].modes.bimodal);
  REQUIRE_FALSE(rows()[1].modes.bimodal);
  const std::string warning = "rmsnorm[rows=64,hidden=4096]: bimodal: 7 samples near 132.2 us, 8 near 150.6 us";
  const auto table = print(Format::table);
  CHECK(table.find("warning: " + warning) != std::string::npos);
  CHECK(table.find("cast[n=1048576]: bimodal") == std::string::npos);
  const auto markdown = print(Format::markdown);
  CHECK(markdown.find("**warning**: " + warning) != std::string::npos);
  CHECK(markdown.find("cast[n=1048576]: bimodal") == std::string::npos);
  const auto csv = print(Format::csv);
  CHECK(csv.find(",gpu,bimodal\n") != std::string::npos);
  CHECK(csv.find(",true\n") != std::string::npos);
  CHECK(csv.find(",false\n") != std::string::npos);
  const auto json = nlohmann::json::parse(print(Format::json));
  CHECK(json["instances"][0]["bimodal"] == true);
  CHECK(json["instances"][0]["modes"]["lower"]["n"] == 7);
  CHECK(json["instances"][0]["modes"]["upper"]["median"].get<double>() == doctest::Approx(150.6e-6));
  CHECK(json["instances"][1]["bimodal"] == false);
  CHECK_FALSE(json["instances"][1].contains("modes"));
}
