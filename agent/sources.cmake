# The sandbox agent's source files, one concern a file (docs/architecture.md, "agent/"). Two users: agent/ compiles
# them on Linux, and packaging/ ships them beside the Dockerfile on every platform (its build stage compiles
# agent/*.c), so the list lives here rather than in either.
set(ZEUS_AGENT_SOURCES
    calls.c
    connect.c
    exec.c
    lane.c
    main.c
    outq.c
    sweep.c
    tunnels.c
    util.c)
set(ZEUS_AGENT_HEADERS
    agent.h
    calls.h
    connect.h
    exec.h
    lane.h
    outq.h
    protocol.h
    sweep.h
    tunnels.h
    util.h)
list(TRANSFORM ZEUS_AGENT_SOURCES PREPEND "${CMAKE_CURRENT_LIST_DIR}/")
list(TRANSFORM ZEUS_AGENT_HEADERS PREPEND "${CMAKE_CURRENT_LIST_DIR}/")
