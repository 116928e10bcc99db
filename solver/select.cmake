# solve() and the --solver auto policy.
set(SGDNET_SOLVER_SELECT ${CMAKE_CURRENT_LIST_DIR}/select.cpp)
