# backends/device: the device plan (tiles, passes, portions, scratch
# layouts) that the OpenCL module and the CUDA/HIP modules both link, as a
# convenience library of plain C; libportsort itself does not need it.
noinst_LTLIBRARIES += backends/device/libps_device.la
backends_device_libps_device_la_SOURCES = backends/device/ps_device_plan.c
noinst_HEADERS += backends/device/ps_device_plan.h
