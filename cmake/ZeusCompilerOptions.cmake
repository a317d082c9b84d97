# One INTERFACE target carries the warnings and the Qt hygiene defines; every
# target of the project links it.
add_library(zeus_options INTERFACE)
add_library(zeus::options ALIAS zeus_options)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(zeus_options INTERFACE
        -Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Woverloaded-virtual
        -Wcast-qual -Wformat=2)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(zeus_options INTERFACE -Wshadow=local)
    else()
        # qCInfo(category) << ... expands a variadic macro with no arguments.
        target_compile_options(zeus_options INTERFACE -Wno-gnu-zero-variadic-macro-arguments)
    endif()
    if(ZEUS_WARNINGS_AS_ERRORS)
        target_compile_options(zeus_options INTERFACE -Werror)
    endif()
elseif(MSVC)
    target_compile_options(zeus_options INTERFACE /W4 /permissive- /utf-8)
    if(ZEUS_WARNINGS_AS_ERRORS)
        target_compile_options(zeus_options INTERFACE /WX)
    endif()
endif()

target_compile_definitions(zeus_options INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_URL_CAST_FROM_STRING
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
    QT_NO_KEYWORDS
    QT_USE_QSTRINGBUILDER
    QT_NO_FOREACH
    QT_DISABLE_DEPRECATED_BEFORE=0x060400
    QT_DISABLE_DEPRECATED_UP_TO=0x060400)

# The linker: lld where it is installed (cmake/install-deps.sh installs it). Every test is an executable that links
# the static core; lld links one in about a third of GNU ld's time, minutes over a whole build. OFF, or no lld:
# the compiler's default linker.
option(ZEUS_USE_LLD "Link with lld when the compiler can use it" ON)
if(ZEUS_USE_LLD AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
    include(CheckLinkerFlag)
    check_linker_flag(CXX "-fuse-ld=lld" ZEUS_HAVE_LLD)
    if(ZEUS_HAVE_LLD)
        add_link_options("-fuse-ld=lld")
    endif()
endif()
