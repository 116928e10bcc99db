# Simulator truth tests (label truth) and the 200-run CI coverage test (label slow).
if(TARGET sgdnet_solver)
    sgdnet_add_doctest(sim_truth_tests LABELS truth
        SOURCES
            ${CMAKE_CURRENT_LIST_DIR}/sim_queues_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/sim_semantics_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/sim_determinism_test.cpp
        LIBS sgdnet::solver)
    sgdnet_add_doctest(sim_coverage_tests LABELS slow
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/sim_coverage_test.cpp
        LIBS sgdnet::solver)
endif()
