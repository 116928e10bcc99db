# INTERFACE target carrying the project's warning flags; generated code does not link it.
add_library(sgdnet_warnings INTERFACE)
add_library(sgdnet::warnings ALIAS sgdnet_warnings)
target_compile_options(sgdnet_warnings INTERFACE -Wall -Wextra -Wpedantic)
# GCC's -Wshadow=local; Clang (the fuzzing build) has no such level.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(sgdnet_warnings INTERFACE -Wshadow=local)
endif()
if(SGDNET_WERROR)
    target_compile_options(sgdnet_warnings INTERFACE -Werror)
endif()
