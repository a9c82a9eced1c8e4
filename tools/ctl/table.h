// Aligned text tables for rocelbctl: one header row, then data rows. Each
// column is as wide as its widest cell (header included) and is aligned left
// (text) or right (numbers); columns are two spaces apart, every line may
// start with an indent, and no line ends in spaces. Widths count UTF-8 code
// points, so "µs" lines up like "us".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocelb {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kLeft;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns, std::string indent = "");

  // One row; missing trailing cells are empty. More cells than columns
  // throws std::invalid_argument.
  Table& add(std::vector<std::string> cells);

  size_t rows() const { return rows_.size(); }

  // Header and rows, each line '\n'-terminated.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::string indent_;
  std::vector<std::vector<std::string>> rows_;
};

// Column shorthands: Table({left("name"), right("rx_pkts")}).
inline Column left(std::string header) {
  return {std::move(header), Align::kLeft};
}
inline Column right(std::string header) {
  return {std::move(header), Align::kRight};
}

// A counter as a cell.
inline std::string num(uint64_t v) {
  return std::to_string(v);
}

}  // namespace rocelb
