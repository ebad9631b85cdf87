# seg-classes.awk - read a PORTSORT_VERBOSE=1 log of segmented sorts on a
# device backend and fail unless the backend's own segmented path ran with
# segments in every size class ("<backend>: segments, n=N, S segments:
# A small (...), B medium (...), C large"), large ones sorted together in
# tiles ("... batched ...") and, with -v huge=1, huge ones by the plain
# device sort (its own log line, "<backend>: n=..." or "... onesweep, n=...":
# a segmented test sorts nothing else).  Used by test/opencl.sh and
# test/gpu-fake.sh.
/: segments, n=/ {
    calls++
    for (i = 2; i <= NF; i++) {
        if ($i == "small") small += $(i - 1)
        if ($i == "medium") medium += $(i - 1)
        if ($i == "large") large += $(i - 1)
    }
}
/: segments, .*batched/ { batched++ }
/^portsort: [a-z]*: (n=|onesweep, n=|reduce-then-scan, n=)/ { plain++ }
END {
    printf "segmented calls on the device path: %d; segments sorted there: " \
           "%d small, %d medium, %d large (%d batched calls, %d huge ones)\n",
           calls, small, medium, large, batched, plain
    if (!(calls && small && medium && large && batched) || (huge && !plain)) {
        print "FAIL: the device's segmented sort did not run, or missed a size class"
        exit 1
    }
}
