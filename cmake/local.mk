# cmake/: the CMake package (find_package(portsort CONFIG)), installed in
# $(libdir)/cmake/portsort.  The version file is made by configure; the
# config file here, because it needs the installation directories as make
# expands them (see ps-cmake-config.sh for why it stays relocatable).
cmakeconfigdir = $(libdir)/cmake/portsort
cmakeconfig_DATA = cmake/portsort-config.cmake cmake/portsort-config-version.cmake
EXTRA_DIST += cmake/portsort-config.cmake.in cmake/ps-cmake-config.sh
CLEANFILES += cmake/portsort-config.cmake

cmake/portsort-config.cmake: $(srcdir)/cmake/portsort-config.cmake.in \
		$(srcdir)/cmake/ps-cmake-config.sh Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && \
	$(SHELL) $(srcdir)/cmake/ps-cmake-config.sh \
	  $(srcdir)/cmake/portsort-config.cmake.in '$(PACKAGE_VERSION)' \
	  '$(PS_SO_MAJOR)' '$(prefix)' '$(libdir)' '$(includedir)' \
	  '$(PS_MPI_ENABLED)' '$(MPI_CFLAGS)' '$(MPI_LIBS)' >$@.tmp && \
	mv -f $@.tmp $@
