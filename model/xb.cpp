// Model of the XB of one link port (see xb.hpp; rtl/xf_xb.sv).
#include "xb.hpp"

#include <algorithm>

namespace xf::model {

Xb::Xb(uint32_t queue_flits, uint32_t xoff_flits, uint32_t xon_flits)
    : queue_flits_(queue_flits), xoff_flits_(xoff_flits), xon_flits_(xon_flits) {}

void Xb::push(const Flit& f) {
  q_.push_back(f);
  if (q_.size() > queue_flits_) ++overflows_;  // the XON/XOFF budget was violated
  max_occupancy_ = std::max<uint32_t>(max_occupancy_, occupancy());
}

Xb::Msg Xb::decide() {
  // One tile at a time; XOFF before the queue can overflow, XON when drained.
  Msg m;
  const uint32_t occ = occupancy();
  if (granted_ < 0 && !requests_.empty() && occ < xoff_flits_) {
    granted_ = requests_.front();
    requests_.pop_front();
    xoff_ = false;
    m = {granted_, XbMsg::kGrant};
  } else if (granted_ >= 0) {
    if (!xoff_ && occ >= xoff_flits_) {
      xoff_ = true;
      m = {granted_, XbMsg::kXoff};
    } else if (xoff_ && occ <= xon_flits_) {
      xoff_ = false;
      m = {granted_, XbMsg::kXon};
    }
  }
  return m;
}

bool Xb::end_cycle() {
  bool lost = false;
  for (; q_.size() > queue_flits_; lost = true) q_.pop_back();  // one at most, from one input
  return lost;
}

}  // namespace xf::model
