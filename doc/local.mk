# doc/: algorithm notes and measured results.
EXTRA_DIST += doc/algorithm.md doc/results-reference.md
# Man pages: portsort(1) for the command, libportsort(3) for every public
# function of lib/portsort.h (test/cli-manpages.sh checks none is missing).
dist_man_MANS = doc/portsort.1 doc/libportsort.3
