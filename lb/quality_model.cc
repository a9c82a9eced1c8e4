#include "lb/quality_model.h"

namespace rocelb {

QualityModel::QualityModel(const QualityKnobs& k) : queue_thresholds_(k.queue_thresholds) {
  for (int i = 0; i < kQualityThresholds; ++i) load_thresholds_[i] = k.load_thresholds[i];
  for (uint32_t l = 0; l < kQualityBands; ++l)
    for (uint32_t q = 0; q < kQualityBands; ++q)
      band_[l][q] = static_cast<uint8_t>((k.load_weight * l + k.queue_weight * q + 50) / 100);
}

uint32_t QualityModel::load_level_wide(uint64_t load_bps, uint64_t speed_bps) const {
  const unsigned __int128 load100 = static_cast<unsigned __int128>(load_bps) * 100;
  uint32_t l = 0;
  for (uint64_t t : load_thresholds_) l += load100 >= static_cast<unsigned __int128>(t) * speed_bps;
  return l;
}

}  // namespace rocelb
