# seg-classes.awk - read a PORTSORT_VERBOSE=1 log of segmented sorts on a
# device backend ("<backend>: segments, n=N, S segments: A small (...),
# B medium (...), C large") and fail unless the backend's own segmented
# path ran with segments in every size class.  Used by test/opencl.sh and
# test/gpu-fake.sh.
/: segments, n=/ {
    calls++
    for (i = 2; i <= NF; i++) {
        if ($i == "small") small += $(i - 1)
        if ($i == "medium") medium += $(i - 1)
        if ($i == "large") large += $(i - 1)
    }
}
END {
    printf "segmented calls on the device path: %d; segments sorted there: " \
           "%d small, %d medium, %d large\n", calls, small, medium, large
    if (!(calls && small && medium && large)) {
        print "FAIL: the device's segmented sort did not run, or missed a size class"
        exit 1
    }
}
