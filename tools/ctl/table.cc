#include "tools/ctl/table.h"

#include <algorithm>
#include <stdexcept>

namespace rocelb {
namespace {

// Display width: UTF-8 continuation bytes (10xxxxxx) take no column.
size_t width(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

Table::Table(std::vector<Column> columns, std::string indent)
    : columns_(std::move(columns)), indent_(std::move(indent)) {}

Table& Table::add(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    throw std::invalid_argument("table row has " + std::to_string(cells.size()) + " cells for " +
                                std::to_string(columns_.size()) + " columns");
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string Table::render() const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = width(columns_[c].header);
    for (const auto& r : rows_) widths[c] = std::max(widths[c], width(r[c]));
  }
  std::string out;
  auto line = [&](auto cell_of) {
    std::string l = indent_;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      const std::string pad(widths[c] - width(cell), ' ');
      if (c > 0) l += "  ";
      l += columns_[c].align == Align::kRight ? pad + cell : cell + pad;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l;
    out += '\n';
  };
  line([&](size_t c) -> const std::string& { return columns_[c].header; });
  for (const auto& r : rows_) line([&](size_t c) -> const std::string& { return r[c]; });
  return out;
}

}  // namespace rocelb
