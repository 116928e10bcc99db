# Truth tests of the training-system lowering (issue 5): closed forms of every scheme.
if(TARGET sgdnet_compiler AND TARGET sgdnet_solver)
    sgdnet_add_doctest(training_truth_tests LABELS truth
        SOURCES
            ${CMAKE_CURRENT_LIST_DIR}/training_schemes_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/training_transfers_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/training_text_test.cpp
        LIBS sgdnet::compiler sgdnet::solver)
endif()
if(TARGET sgdnet_compiler AND TARGET sgdnet_solver)
    sgdnet_add_doctest(training_models_tests LABELS slow
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/training_models_test.cpp
        LIBS sgdnet::compiler sgdnet::solver)
endif()
