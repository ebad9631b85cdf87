# doc/: algorithm notes and measured results.
EXTRA_DIST += doc/algorithm.md doc/results-reference.md
EXTRA_DIST += doc/cuda.md
