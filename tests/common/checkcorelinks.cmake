# Fails when zeus_core's link libraries name a GUI module.
if(TARGET_LIBS MATCHES "Widgets|Qt6::Gui")
    message(FATAL_ERROR "zeus_core links a GUI module: ${TARGET_LIBS}")
endif()
message(STATUS "zeus_core links: ${TARGET_LIBS}")
