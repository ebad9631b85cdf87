# tools/: the installed command line, on the public API only.  Its sources
# are in tools/cli/; the programs keep their place in tools/ (tools/portsort
# here, tools/portsort-mpi in mpi/local.mk), where the docs and tests run
# them.

# portsort: the command line (info, sort, bench).  One file per job; the
# peers table (ps_cli_peers.c) is where other sorts to compare with go.
bin_PROGRAMS += tools/portsort
tools_portsort_SOURCES = \
	tools/cli/portsort.c \
	tools/cli/ps_cli.h \
	tools/cli/ps_cli_types.c \
	tools/cli/ps_cli_file.c \
	tools/cli/ps_cli_lines.c \
	tools/cli/ps_cli_keys.c \
	tools/cli/ps_cli_info.c \
	tools/cli/ps_cli_sort.c \
	tools/cli/ps_cli_external.c \
	tools/cli/ps_cli_bench_parts.h \
	tools/cli/ps_cli_bench.c \
	tools/cli/ps_cli_bench_options.c \
	tools/cli/ps_cli_bench_child.c \
	tools/cli/ps_cli_bench_measure.c \
	tools/cli/ps_cli_data.c \
	tools/cli/ps_cli_segments.c \
	tools/cli/ps_cli_peers.c \
	tools/cli/ps_cli_report.c \
	tools/cli/peers/ps_peer_vqsort.cc
tools_portsort_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/cli
tools_portsort_LDADD = lib/libportsort.la $(PS_HWY_LIBS) $(PTHREAD_LIBS) -lm
noinst_HEADERS += tools/cli/peers/ps_peers.h
