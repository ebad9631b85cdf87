# backends/serial: the reference sort as a backend, always built in.
noinst_LTLIBRARIES += backends/serial/libps_serial.la
backends_serial_libps_serial_la_SOURCES = backends/serial/ps_serial.c
backends_serial_libps_serial_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/reference
