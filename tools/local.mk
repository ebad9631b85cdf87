# tools/: programs built on the public API.
noinst_PROGRAMS += tools/ps_quickbench
tools_ps_quickbench_SOURCES = tools/ps_quickbench.c
tools_ps_quickbench_LDADD = lib/libportsort.la
