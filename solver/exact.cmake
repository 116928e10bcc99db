# Exact CTMC solver sources: reachability graph, phase-type expansion, steady state, measures.
set(SGDNET_SOLVER_EXACT
    ${CMAKE_CURRENT_LIST_DIR}/ctmc_build.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ctmc_solve.cpp
    ${CMAKE_CURRENT_LIST_DIR}/phase_type.cpp
)
