# SPDX-License-Identifier: MIT
# cordon_plain_library(NAME ALLOWED prefix... [LINKS target...] [EXTRA source...] [EXCLUDE regex] [NO_EXPECTED])
#
# A static library of the calling folder's sources (*.cpp, *.h, *.inc, its subfolders included) in plain C++:
# the sandbox library and the client's lite pieces, which the `cordon` launcher (a static PIE) and cordon-init
# link. A source that includes Qt, or an engine header outside the ALLOWED prefixes ("sandbox/"), stops the
# configure step: the linker would notice only once a static program failed to link, and the layer rule should
# hold at every commit. NO_EXPECTED also refuses tl::expected. EXTRA adds generated sources; EXCLUDE leaves
# out the sources whose path matches (checked all the same).
function(cordon_plain_library name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_EXPECTED" "EXCLUDE" "ALLOWED;LINKS;EXTRA")
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/*.h
        ${CMAKE_CURRENT_SOURCE_DIR}/*.inc)
    list(JOIN ARG_ALLOWED "|" allowed)
    set(refused "^#include [<\"](Q|qt)")
    if(ARG_NO_EXPECTED)
        set(refused "^#include [<\"](Q|qt|tl/)")
    endif()
    foreach(source IN LISTS sources)
        file(STRINGS ${source} includes REGEX "^#include [<\"]")
        foreach(line IN LISTS includes)
            if(line MATCHES "${refused}" OR
               (line MATCHES "^#include \"[a-z]+/" AND NOT line MATCHES "^#include \"(${allowed})"))
                string(REPLACE "|" ", " allowed_list "${allowed}")
                message(FATAL_ERROR "${source}: ${line}\n"
                    "${name} is plain C++ without Qt: it may include the C and C++ libraries and, of the "
                    "engine, ${allowed_list} only.")
            endif()
        endforeach()
    endforeach()
    if(ARG_EXCLUDE)
        list(FILTER sources EXCLUDE REGEX "${ARG_EXCLUDE}")
    endif()
    add_library(${name} STATIC ${sources} ${ARG_EXTRA})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/engine)
    target_link_libraries(${name} PUBLIC cordon_build_settings ${ARG_LINKS})
    set_target_properties(${name} PROPERTIES AUTOMOC OFF)
    # A section per function and per object, so that the programs linked with --gc-sections (cordon-init, the
    # launcher, cordon-artifact-export: app/CMakeLists.txt) keep only what they call of a library whose
    # objects also serve the daemon.
    target_compile_options(${name} PRIVATE -ffunction-sections -fdata-sections)
endfunction()
