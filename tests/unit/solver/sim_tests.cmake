# Simulator unit tests, compiled into the solver's single doctest binary.
list(APPEND SGDNET_SOLVER_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/rng_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/event_queue_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sim_engine_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/estimators_test.cpp
)
