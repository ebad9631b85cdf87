#!/bin/sh
# The HIP kernels' warp width (PS_WARP_SIZE, backends/kernels/
# ps_kernel_dialect.h) must match the target's wavefront: 32 on RDNA
# (gfx1030), 64 on CDNA (gfx90a); a wrong one ranks Onesweep tiles wrongly
# without any error.  Checked by compiling a static assertion for the
# device with hipcc, once with clang's __AMDGCN_WAVEFRONT_SIZE and once
# without it (deprecated in ROCm 6.3, gone from upstream clang), so the
# fallback on the target family is tested too.  Skipped without hipcc.
command -v hipcc >/dev/null 2>&1 || { echo "no hipcc: skipped"; exit 77; }
kernels=$(cd "$(dirname "$0")/../backends/kernels" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-wave.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
for case in gfx1030:32 gfx90a:64; do
    arch=${case%:*} width=${case#*:}
    printf '#include "ps_kernel_dialect.h"\nstatic_assert(PS_WARP_SIZE == %s, "PS_WARP_SIZE");\n__global__ void k() {}\n' \
        "$width" > "$dir/w.hip"
    for undef in "" -U__AMDGCN_WAVEFRONT_SIZE; do
        if hipcc -x hip --offload-arch="$arch" --cuda-device-only \
               -Wno-builtin-macro-redefined $undef -I"$kernels" \
               -c "$dir/w.hip" -o "$dir/w.o" > "$dir/log" 2>&1; then
            echo "ok: $arch has PS_WARP_SIZE $width ${undef:-(with the clang macro)}"
        elif grep -q "cannot find ROCm device library" "$dir/log"; then
            echo "no device library for $arch: skipped that target"
        else
            cat "$dir/log"
            echo "FAIL: $arch ${undef:-(with the clang macro)}: PS_WARP_SIZE is not $width"
            fail=1
        fi
    done
done
exit $fail
