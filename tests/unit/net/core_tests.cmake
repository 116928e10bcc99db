# Unit tests of the net IR core: distributions and marking expressions.
list(APPEND SGDNET_NET_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/distribution_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/marking_expr_test.cpp)
