# Tests of the PyTorch profile import (compiler/profile_import.cpp), data in tests/data/profiles/.
list(APPEND SGDNET_COMPILER_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/profile_import_test.cpp)

# While the whole compiler library (grammar, passes) cannot be linked yet, the importer's tests
# build on their own: the importer needs only the diagnostics sink, the net IR and nlohmann-json.
if(NOT (TARGET sgdnet_compiler AND TARGET sgdnet_solver)
   AND EXISTS ${PROJECT_SOURCE_DIR}/compiler/diagnostics.cpp AND TARGET sgdnet_net)
    sgdnet_add_doctest(profile_import_tests LABELS unit
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/profile_import_test.cpp
                ${PROJECT_SOURCE_DIR}/compiler/profile_import.cpp
                ${PROJECT_SOURCE_DIR}/compiler/diagnostics.cpp
        LIBS sgdnet::net nlohmann_json::nlohmann_json)
endif()
