#include "sample_journal.hpp"
#include "run_directory.hpp"
#include "ipc/json_integer.hpp"
#include "json_errors.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace isobench::orchestrator {

nlohmann::json SampleRecord::to_json() const {
  const ipc::SampleValues& v = values;
  nlohmann::json j = {{"type", "sample"},       {"instance", instance},   {"instance_index", instance_index},
                      {"sample", sample},       {"round", round},         {"slot", slot},
                      {"side", side},           {"value", v.value_s},     {"unit", "s"},
                      {"inner", v.inner},       {"worker_pid", worker_pid}, {"worker_serial", worker_serial},
                      {"time", unix_time},      {"begin_ns", v.begin_ns}, {"end_ns", v.end_ns},
                      {"sm_clock_mhz", v.sm_clock_mhz}, {"flags", ipc::sample_flag_names(v.flags)}};
  j["host_enqueue_s"] = v.host_enqueue_s;
  if (v.kernel_gpu_s > 0) j["kernel_gpu_s"] = v.kernel_gpu_s;  // only samples of a worker that recorded
  if (!rank_values.empty()) j["rank_values"] = rank_values;
  if (gpu >= 0) j["gpu"] = gpu;
  if (!gpu_uuid.empty()) j["gpu_uuid"] = gpu_uuid;
  if (!gpu_name.empty()) j["gpu_name"] = gpu_name;
  return j;
}

SampleRecord SampleRecord::from_json(const nlohmann::json& j) {
  SampleRecord r;
  r.instance = j.at("instance").get<std::string>();
  r.instance_index = ipc::json_integer<std::uint32_t>(j.at("instance_index"));
  r.sample = ipc::json_integer<std::uint32_t>(j.at("sample"));
  r.round = ipc::json_integer<std::uint32_t>(j.at("round"));
  r.slot = ipc::json_integer<std::uint32_t>(j.at("slot"));
  r.side = j.contains("side") ? ipc::json_integer<std::uint32_t>(j["side"]) : 0;
  ipc::SampleValues& v = r.values;
  v.value_s = j.at("value").get<double>();
  v.inner = ipc::json_integer<std::uint32_t>(j.at("inner"));
  r.worker_pid = ipc::json_integer<std::int64_t>(j.at("worker_pid"));
  r.worker_serial = ipc::json_integer<std::uint64_t>(j.at("worker_serial"));
  r.unix_time = j.at("time").get<double>();
  v.begin_ns = j.contains("begin_ns") ? ipc::json_integer<std::uint64_t>(j["begin_ns"]) : 0;
  v.end_ns = j.contains("end_ns") ? ipc::json_integer<std::uint64_t>(j["end_ns"]) : 0;
  v.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
  for (const auto& name : j.value("flags", std::vector<std::string>{})) {
    const auto bit = ipc::sample_flag_bit(name);
    if (!bit) throw std::runtime_error("flags: \"" + name + "\" is no sample flag");
    v.flags |= *bit;
  }
  v.host_enqueue_s = j.value("host_enqueue_s", 0.0);  // absent in journals written before it
  v.kernel_gpu_s = j.value("kernel_gpu_s", 0.0);
  r.rank_values = j.value("rank_values", std::vector<double>{});
  r.gpu = j.contains("gpu") ? ipc::json_integer<int>(j["gpu"]) : -1;  // absent before --gpus
  r.gpu_uuid = j.value("gpu_uuid", std::string());
  r.gpu_name = j.value("gpu_name", std::string());
  return r;
}

SampleJournal::SampleJournal(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
}

SampleJournal::~SampleJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SampleJournal::append(const SampleRecord& record) { write_line(dump_json(record.to_json())); }

void SampleJournal::append_event(const nlohmann::json& event) { write_line(dump_json(event)); }

void SampleJournal::write_line(const std::string& json_text) {
  const std::string line = json_text + "\n";
  // One write() per line: O_APPEND makes it atomic with respect to other appends, and what
  // reached the kernel survives the death of this process.
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot append to " + path_ + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

JournalContents read_journal(const std::string& path) {
  JournalContents out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;  // no journal yet: nothing measured
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string::npos || nl + 1 >= text.size();
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    const auto j = nlohmann::json::parse(line, nullptr, false);
    const bool complete = nl != std::string::npos && !j.is_discarded() && j.is_object();
    if (!complete) {
      if (last) {
        out.dropped_torn_tail = true;
        break;
      }
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": damaged line in the journal");
    }
    if (j.contains("type") && !j["type"].is_string())  // value() would throw a json type_error
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": \"type\" is not a string");
    const std::string type = j.value("type", "sample");
    if (type == "sample") {
      try {
        out.samples.push_back(SampleRecord::from_json(j));
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": " + json_error_text(e));
      } catch (const std::exception& e) {
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": " + e.what());
      }
    } else {
      out.events.push_back(j);
    }
    pos = nl + 1;
    out.valid_bytes = pos;
  }
  return out;
}

void truncate_journal(const std::string& path, std::uint64_t valid_bytes) {
  if (::truncate(path.c_str(), static_cast<off_t>(valid_bytes)) != 0)
    throw std::runtime_error("cannot truncate " + path + ": " + std::strerror(errno));
}

}  // namespace isobench::orchestrator
