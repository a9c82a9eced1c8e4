// Captures what the daemon logs through spdlog's default logger, for the
// daemon's unit tests: while a LogCapture lives, every line goes to memory
// (thread-safe) and the previous default logger is restored afterwards.
#pragma once

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rocelb::test {

class MemorySink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::string text() {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& l : lines_) all += l;
    return all;
  }
  bool contains(const std::string& s) { return text().find(s) != std::string::npos; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    lines_.emplace_back(buf.data(), buf.size());
  }
  void flush_() override {}

 private:
  std::vector<std::string> lines_;
};

class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()), sink_(std::make_shared<MemorySink>()) {
    auto logger = std::make_shared<spdlog::logger>("test", sink_);
    logger->set_pattern("[%l] %v");
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }

  std::string text() { return sink_->text(); }
  bool contains(const std::string& s) { return sink_->contains(s); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<MemorySink> sink_;
};

}  // namespace rocelb::test
