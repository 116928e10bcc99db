# Unit tests of the semantic passes: units, evaluation, resolve, check, raw-net lowering.
list(APPEND SGDNET_COMPILER_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/units_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/eval_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/resolve_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/check_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lower_net_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/layer_table_test.cpp
)
