# Tests of the PyTorch profile import (compiler/profile_import.cpp), data in tests/data/profiles/.
list(APPEND SGDNET_COMPILER_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/profile_import_test.cpp)

