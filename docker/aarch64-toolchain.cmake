# CMake toolchain file: cross-compile for linux/arm64 (aarch64) with Debian's
# gcc-aarch64-linux-gnu and g++-aarch64-linux-gnu. Used by
# docker/build-leveldb.sh --target aarch64.
#
# Libraries and headers are looked up only in the target sysroot
# (/usr/aarch64-linux-gnu), never in the host's /usr/lib: an amd64 libsnappy
# must not be mistaken for an arm64 one.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
