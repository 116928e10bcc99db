# Helpers that register doctest binaries and their ctest labels (unit, golden, truth, slow, examples).

# The doctest main (doctest's whole implementation, the suite's costliest translation unit),
# compiled once and linked into every test binary.
add_library(sgdnet_doctest_main OBJECT ${PROJECT_SOURCE_DIR}/tests/doctest_main.cpp)
target_link_libraries(sgdnet_doctest_main PRIVATE doctest::doctest)

# sgdnet_add_doctest(NAME LABELS l1 [l2…] SOURCES s1… LIBS lib1…)
# Builds one doctest binary from the sources plus the shared doctest main and registers it as
# one ctest per binary with the given labels.
function(sgdnet_add_doctest name)
    cmake_parse_arguments(ARG "" "" "LABELS;SOURCES;LIBS" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE sgdnet_doctest_main ${ARG_LIBS} doctest::doctest
                          sgdnet::warnings)
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${name} PRIVATE
        SGDNET_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
        SGDNET_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
    if("unit" IN_LIST ARG_LABELS OR "golden" IN_LIST ARG_LABELS)
        set_property(GLOBAL APPEND PROPERTY SGDNET_UNIT_GOLDEN_PROGRAMS ${name})
    endif()
endfunction()
