# SGDNET_COMPILER_PROFILE: import of one-node PyTorch profiles (per-layer JSON, Chrome traces).
set(SGDNET_COMPILER_PROFILE ${CMAKE_CURRENT_LIST_DIR}/profile_import.cpp)
