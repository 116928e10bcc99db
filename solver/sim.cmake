# Monte Carlo solver sources (issue 3): RNG and samplers, event queue, engine, estimators, driver.
set(SGDNET_SOLVER_SIM
    ${CMAKE_CURRENT_LIST_DIR}/rng.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sim_engine.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sim_estimators.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sim_run.cpp
)
