#!/usr/bin/env bash
# The GPU check each session runs when a GPU is lent: the whole suite with the GPU as minitf's
# default device, then the GPU benchmarks (minitf on cupy vs PyTorch CUDA).
#   bash tools/gpu_check.sh [OUTDIR]      (from the repository root; logs go to OUTDIR)
# Each phase has its own time limit, so a hang in one still leaves the others' figures.
set -o pipefail
out=${1:-${OUT:-/tmp/gpu_check}}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
nvidia-smi -L
python3 -c "import sys, cupy, numpy; print('python', sys.version.split()[0], 'cupy', cupy.__version__, 'numpy', numpy.__version__)"
per_test=()
python3 -c "import pytest_timeout" 2>/dev/null && per_test=(--timeout "${PER_TEST_TIMEOUT:-120}")
start=$(date +%s)
MINITF_TEST_DEVICE=gpu timeout "${SUITE_TIMEOUT:-300}" python3 -m pytest -p no:cacheprovider \
  -o addopts="--import-mode=importlib" -n "${WORKERS:-12}" -v --tb=short -rfE --durations=10 \
  "${per_test[@]}" tests > "$out/gpu_tests.log" 2>&1
echo "suite rc $? in $(( $(date +%s) - start )) s"
grep -E "^(FAILED|ERROR) " "$out/gpu_tests.log" | head -60
tail -n 25 "$out/gpu_tests.log"
# Benchmarks run without the OpenBLAS overrides some machines set (users do not have them).
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
timeout "${BENCH_TIMEOUT:-120}" python3 benchmarks/bench_gpu.py 2>&1 | tee "$out/bench_gpu.log"
timeout "${BENCH_TIMEOUT:-120}" python3 benchmarks/bench_sequence.py --gpu --rounds 3 2>&1 \
  | tee "$out/bench_sequence_gpu.log"
