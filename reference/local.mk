# reference/: the serial LSD counting sort, the oracle other backends are
# compared with.  A convenience library linked into libportsort.
noinst_LTLIBRARIES += reference/libpsreference.la
noinst_HEADERS += reference/ps_reference.h
reference_libpsreference_la_SOURCES = reference/ps_reference.c \
	reference/ps_inplace.c reference/ps_inplace.h \
	reference/ps_reference_kernels-inl.h
