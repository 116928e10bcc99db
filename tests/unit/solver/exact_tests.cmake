# Exact-solver unit tests (one doctest binary for the whole solver library).
list(APPEND SGDNET_SOLVER_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/ctmc_build_test.cpp
)
