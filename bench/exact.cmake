# Exact-solver scale benchmark (plain executable, so /usr/bin/time -v measures one run).
if(TARGET sgdnet_solver)
    add_executable(exact_bench ${CMAKE_CURRENT_LIST_DIR}/exact_bench.cpp)
    target_link_libraries(exact_bench PRIVATE sgdnet::solver sgdnet::warnings)
endif()
