/*
 * ps_gpu_arch.h - whether an AMD GPU's target is among those a module was
 * built for, read from the names alone (no runtime header), so that the
 * HIP module can refuse a GPU it has no code object for before the HIP
 * runtime sees a kernel: many ROCm releases abort the process there
 * ("hipErrorNoBinaryForGpu") instead of returning the error.
 */
#ifndef PS_GPU_ARCH_H
#define PS_GPU_ARCH_H

/* device: the device's gcnArchName, a target and its features, e.g.
 * "gfx90a:sramecc+:xnack-".  built: the targets the module was compiled
 * for, separated by spaces or commas, each maybe with features
 * ("gfx90a gfx942", "gfx90a:xnack+,gfx1100").
 * Returns 1 when an entry of built runs on device: same target, and every
 * feature the entry names set the same way on the device (an entry that
 * names none runs with either setting, as clang builds it); 0 when none
 * does; -1 when that cannot be told from the names: device is empty, or
 * built has a generic target (gfx9-generic and the like, which runs on
 * several), whose list of members the runtime knows and we do not. */
int ps_gpu_arch_listed(const char *device, const char *built);

#endif
