// The Verilated machines of this build, one per flit width (docs/packets.md section 2), and the
// dispatch from a topology's width to the machine's type. CMake's XF_FLIT_WIDTHS chooses the
// widths built (CMakeLists.txt); XF_RTL_W<N> says which are here.
#pragma once

#include <stdexcept>
#include <string>

#include "rtl_system.hpp"
#if XF_RTL_W128
#include "Vxf_chip.h"
#include "Vxf_switch.h"
#endif
#if XF_RTL_W64
#include "Vxf_chip_w64.h"
#include "Vxf_switch_w64.h"
#endif
#if XF_RTL_W32
#include "Vxf_chip_w32.h"
#include "Vxf_switch_w32.h"
#endif

namespace xf::rtl {

template <class S>
struct MachineTag {
  using type = S;
};

// Why this build has no machine of `flit_bits`, and what to do.
inline std::string no_machine(int flit_bits) {
  return "the Verilated RTL of this build has flit widths " XF_RTL_WIDTHS ", not " +
         std::to_string(flit_bits) +
         "; rebuild with that width (cmake -DXF_FLIT_WIDTHS=\"128;64;32\", or make build "
         "XF_FLIT_WIDTHS=...) or use the model backend";
}

// Calls f(MachineTag<RtlSystem<Chip, Switch>>{}) with the Verilated classes of `flit_bits` and
// returns what f returns; throws std::runtime_error (no_machine) when the build has none.
template <class F>
decltype(auto) with_machine(int flit_bits, F&& f) {
  switch (flit_bits) {
#if XF_RTL_W128
    case 128:
      return f(MachineTag<RtlSystem<Vxf_chip, Vxf_switch>>{});
#endif
#if XF_RTL_W64
    case 64:
      return f(MachineTag<RtlSystem<Vxf_chip_w64, Vxf_switch_w64>>{});
#endif
#if XF_RTL_W32
    case 32:
      return f(MachineTag<RtlSystem<Vxf_chip_w32, Vxf_switch_w32>>{});
#endif
    default:
      break;
  }
  throw std::runtime_error(no_machine(flit_bits));
}

}  // namespace xf::rtl
