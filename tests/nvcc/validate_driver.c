/*
 * validate_driver.c - a stand-alone `kpipe validate` for sass_smoke.sh when
 * no kpipe binary with the validate command is at hand.  Invoked as
 * `driver validate ARGS...`, like `kpipe validate ARGS...`: cmd_validate()
 * gets argv from "validate" on.  Built by the script, not by CMake.
 */
#include "cmd.h"

int main(int argc, char **argv) { return argc < 2 ? 2 : cmd_validate(argc - 1, argv + 1); }
