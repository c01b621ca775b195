#!/usr/bin/env bash
# cpudiff.sh - CPU differential check of a kpipe rewrite against its original.
#
#   bash tests/cpudiff/cpudiff.sh ORIGINAL.cu REWRITTEN.cu [--spec X.launch.json] [--size NAME]...
#
# Runs both kernels on the CPU through the CUDA emulator (kp_cpu_cuda.h)
# under several thread schedules and cp.async completion modes and compares
# every output element (docs/cpudiff.md).  Exit status: 0 every run matched,
# 1 a mismatch or failure of the rewrite, 2 usage/spec/original problem,
# 77 cannot check ("SKIP: reason" on stdout).  All options: --help.
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/cpudiff.py" "$@"
