# Tests of the front end: diagnostics rendering, parsing of every construct, syntax errors.
list(APPEND SGDNET_COMPILER_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/diagnostics_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse_test.cpp)
