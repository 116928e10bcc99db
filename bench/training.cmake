# Training-model benchmark (Google Benchmark): fine ring all-reduce net size and events/s.
if(TARGET sgdnet_compiler AND TARGET sgdnet_solver)
    add_executable(training_bench ${CMAKE_CURRENT_LIST_DIR}/training_bench.cpp)
    target_link_libraries(training_bench PRIVATE sgdnet::compiler sgdnet::solver
                          benchmark::benchmark sgdnet::warnings)
    target_include_directories(training_bench PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(training_bench PRIVATE SGDNET_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
