# SPDX-License-Identifier: MIT
# Debian's libqscintilla2-qt6-dev ships no CMake config: headers live in the Qt include dir under Qsci/,
# the library is qscintilla2_qt6. Defines the imported target QScintilla::QScintilla.
find_path(QScintilla_INCLUDE_DIR NAMES Qsci/qsciscintilla.h
    HINTS ${Qt6Core_INCLUDE_DIRS} /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/qt6 /usr/include/qt6)
find_library(QScintilla_LIBRARY NAMES qscintilla2_qt6)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(QScintilla REQUIRED_VARS QScintilla_LIBRARY QScintilla_INCLUDE_DIR)

if(QScintilla_FOUND AND NOT TARGET QScintilla::QScintilla)
    add_library(QScintilla::QScintilla UNKNOWN IMPORTED)
    set_target_properties(QScintilla::QScintilla PROPERTIES
        IMPORTED_LOCATION "${QScintilla_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${QScintilla_INCLUDE_DIR}")
    target_link_libraries(QScintilla::QScintilla INTERFACE Qt6::Widgets)
endif()
mark_as_advanced(QScintilla_INCLUDE_DIR QScintilla_LIBRARY)
