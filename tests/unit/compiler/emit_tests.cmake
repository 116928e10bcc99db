# Tests of the DOT, PNML and JSON exporters. The PNML test parses the output back with libxml2
# (Debian libxml2-dev); the link is added once compiler_unit_tests exists (end of this directory).
list(APPEND SGDNET_COMPILER_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/emit_test.cpp)
find_package(LibXml2 REQUIRED)
find_program(SGDNET_DOT_PROGRAM dot)
function(_sgdnet_emit_tests_link)
    if(TARGET compiler_unit_tests)
        target_link_libraries(compiler_unit_tests PRIVATE LibXml2::LibXml2)
        if(SGDNET_DOT_PROGRAM)
            target_compile_definitions(compiler_unit_tests PRIVATE
                SGDNET_DOT_PROGRAM="${SGDNET_DOT_PROGRAM}")
        endif()
    endif()
endfunction()
cmake_language(DEFER CALL _sgdnet_emit_tests_link)
