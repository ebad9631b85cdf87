# tools/: programs built on the public API.

# portsort: the command line (info, sort, bench).  One file per job; the
# peers table (ps_cli_peers.c) is where other sorts to compare with go.
bin_PROGRAMS += tools/portsort
tools_portsort_SOURCES = \
	tools/portsort.c \
	tools/ps_cli.h \
	tools/ps_cli_types.c \
	tools/ps_cli_file.c \
	tools/ps_cli_lines.c \
	tools/ps_cli_info.c \
	tools/ps_cli_sort.c \
	tools/ps_cli_bench.h \
	tools/ps_cli_bench.c \
	tools/ps_cli_data.c \
	tools/ps_cli_segments.c \
	tools/ps_cli_peers.c \
	tools/ps_cli_report.c \
	tools/peers/ps_peer_vqsort.cc
tools_portsort_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tools_portsort_LDADD = lib/libportsort.la $(PS_HWY_LIBS) $(PTHREAD_LIBS) -lm

# portsort sort against GNU sort on 10M-line files (not yet run: issue 22).
EXTRA_DIST += tools/ps_cli_vs_sort.sh

# portsort.sort against NumPy (doc/python.md).
EXTRA_DIST += tools/ps_py_bench.py

# Global-memory bytes per key of the GPU kernels, counted with valgrind's
# DHAT on the CPU stand-in runtime (tools/ps_gpu_traffic.sh, doc/cuda.md).
# Built with the tests; it needs no GPU and no CUDA header.
check_PROGRAMS += tools/ps_gpu_traffic
tools_ps_gpu_traffic_SOURCES = tools/ps_gpu_traffic.c
tools_ps_gpu_traffic_LDADD = lib/libportsort.la
EXTRA_DIST += tools/ps_gpu_traffic.sh
