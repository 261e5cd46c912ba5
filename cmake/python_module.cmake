# Finds the Python the module is built for and pybind11; sets
# TRAINSCOPE_PYTHON_BUILT and, when found, position-independent code for
# every library (included before src/ is added).
#
# The interpreter is the first `python3` on PATH (the one a user types), or
# -DPython_EXECUTABLE=...: FindPython on its own prefers the newest
# python3.X it sees, which need not be the one `import trainscope` runs in.
if(NOT Python_EXECUTABLE)
  find_program(TRAINSCOPE_PATH_PYTHON3 python3)
  if(TRAINSCOPE_PATH_PYTHON3)
    set(Python_EXECUTABLE ${TRAINSCOPE_PATH_PYTHON3})
  endif()
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
if(Python_FOUND)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
endif()
if(Python_FOUND AND pybind11_FOUND)
  set(TRAINSCOPE_PYTHON_BUILT ON)
  # For scripts/demo.sh, which installs the module where it is built.
  set(TRAINSCOPE_PYTHON_MODULE ON CACHE INTERNAL "the Python module is built")
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  message(STATUS "trainscope: Python module on (${Python_EXECUTABLE}, Python ${Python_VERSION}, pybind11 ${pybind11_VERSION})")
else()
  set(TRAINSCOPE_PYTHON_MODULE OFF CACHE INTERNAL "the Python module is built")
endif()
if(NOT TRAINSCOPE_PYTHON_BUILT AND TRAINSCOPE_PYTHON STREQUAL "ON")
  message(FATAL_ERROR "TRAINSCOPE_PYTHON=ON but pybind11 or Python's headers were not found: "
                      "apt-get install pybind11-dev python3-dev (scripts/install-deps.sh)")
elseif(NOT TRAINSCOPE_PYTHON_BUILT)
  message(STATUS "trainscope: Python module off (pybind11 or Python's headers not found)")
endif()
