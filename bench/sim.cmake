# Simulator benchmark (Google Benchmark): firings/s on a token ring, fork-join, 10k transitions.
if(TARGET sgdnet_solver)
    add_executable(sim_bench ${CMAKE_CURRENT_LIST_DIR}/sim_bench.cpp)
    target_link_libraries(sim_bench PRIVATE sgdnet::solver benchmark::benchmark sgdnet::warnings)
    target_include_directories(sim_bench PRIVATE ${PROJECT_SOURCE_DIR})
endif()
