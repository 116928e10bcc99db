# Unit tests of the training lowering (issue 5).
list(APPEND SGDNET_COMPILER_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/training_lower_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/net_statistics_test.cpp)
