// sgdnet::version(): the version the library was built as.
#include "sgdnet/sgdnet.hpp"

namespace sgdnet {

std::string version() { return SGDNET_VERSION; }

}  // namespace sgdnet
