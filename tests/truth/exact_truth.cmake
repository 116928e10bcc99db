# Exact-solver truth tests: closed forms and MVA (label truth); random-net agreement with the
# simulator (label slow).
if(TARGET sgdnet_solver)
    sgdnet_add_doctest(exact_truth_tests LABELS truth
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/exact_closed_forms_test.cpp
                ${CMAKE_CURRENT_LIST_DIR}/exact_stiff_test.cpp
        LIBS sgdnet::solver Boost::headers)
    sgdnet_add_doctest(exact_property_tests LABELS slow
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/exact_property_test.cpp
        LIBS sgdnet::solver)
endif()
