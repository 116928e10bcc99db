# Tests of the canonical net printer and the structural validator.
list(APPEND SGDNET_NET_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/print_test.cpp)
