// What the L2 cache keeps from one launch to the next is the benchmark's to decide, not the kernel's. Before
// any timing the set-aside for persisting accesses is made 0, so that a line a kernel marks persisting
// survives the L2 flush no better than any other, and the default stream's access-policy window is emptied;
// after every launch both are read back. A persisting window that survived the flush showed 4x the DRAM's
// bandwidth elsewhere.
#pragma once

#include <string>

namespace cml {

// Sets the persisting-L2 size to 0 and empties the default stream's window, where the device allows.
void pin_cache_state();

// "" when both are still as pin_cache_state() left them; otherwise what changed, after pinning them again
// (so the next kernel is measured as the others were). A query the runtime refuses checks nothing.
std::string cache_state_changed();

}  // namespace cml
