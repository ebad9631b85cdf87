# doc/: algorithm notes and measured results.
EXTRA_DIST += doc/algorithm.md doc/results-reference.md doc/reliability.md \
	doc/coverage.md
# Man pages: portsort(1) for the command, libportsort(3) for every public
# function of lib/portsort.h (test/cli/cli-manpages.sh checks none is missing).
# doc/man/ps_*.3 are one-line .so links so that `man ps_sort_keys` works.
dist_man_MANS = doc/portsort.1 doc/libportsort.3 \
	doc/man/ps_argsort.3 \
	doc/man/ps_argsort_strings.3 \
	doc/man/ps_backend_name.3 \
	doc/man/ps_backends.3 \
	doc/man/ps_device_api.3 \
	doc/man/ps_error_detail.3 \
	doc/man/ps_init.3 \
	doc/man/ps_release_cache.3 \
	doc/man/ps_scratch_bytes.3 \
	doc/man/ps_set_memory_limit.3 \
	doc/man/ps_sort_keys.3 \
	doc/man/ps_sort_pairs.3 \
	doc/man/ps_sort_segments.3 \
	doc/man/ps_sort_strings.3 \
	doc/man/ps_strerror.3 \
	doc/man/ps_topk.3 \
	doc/man/ps_topk_segments.3 \
	doc/man/ps_sort_records.3 \
	doc/man/ps_argsort_records.3 \
	doc/man/ps_argsort_columns.3 \
	doc/man/ps_type_size.3 \
	doc/man/ps_version.3
EXTRA_DIST += doc/cuda.md doc/cli-sort.md
EXTRA_DIST += doc/python.md doc/architecture.md doc/segments.md doc/topk.md doc/memory.md \
	doc/packaging.md \
	doc/records.md doc/strings.md

# The CSR example of doc/segments.md, built and run as a test at several
# sizes (test/examples.sh): the documented use must work as written.
check_PROGRAMS += doc/examples/csr_from_coo
doc_examples_csr_from_coo_SOURCES = doc/examples/csr_from_coo.c
doc_examples_csr_from_coo_LDADD = lib/libportsort.la
TESTS += test/examples.sh
EXTRA_DIST += test/examples.sh
