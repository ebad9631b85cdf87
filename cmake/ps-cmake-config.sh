#!/bin/sh
# ps-cmake-config.sh TEMPLATE VERSION SO_MAJOR PREFIX LIBDIR INCLUDEDIR
#                    [MPI_ENABLED MPI_CFLAGS MPI_LIBS]
#
# Writes portsort-config.cmake (from TEMPLATE) on stdout.  LIBDIR and
# INCLUDEDIR are the installation directories as make expands them.  When
# both lie under PREFIX the file finds them relative to its own place,
# $LIBDIR/cmake/portsort, so the installed tree stays usable when moved;
# otherwise (a libdir outside the prefix) it names them absolutely.
# MPI_ENABLED (yes/no) says whether libportsort_mpi was built, and its MPI
# flags become the usage requirements of portsort::portsort_mpi: -I as
# include directories, other compile flags as options, the link words as
# they are (the same flags as portsort-mpi.pc).
set -eu
template=$1 version=$2 so_major=$3 prefix=${4%/} libdir=${5%/} includedir=${6%/}
mpi_enabled=${7:-no} mpi_cflags=${8:-} mpi_libs=${9:-}

# CMake lists (;-separated) from the words of the MPI flags.
mpi_incs= mpi_opts= mpi_link=
for w in $mpi_cflags; do
    case $w in
        -I*) mpi_incs="$mpi_incs;${w#-I}" ;;
        *) mpi_opts="$mpi_opts;$w" ;;
    esac
done
for w in $mpi_libs; do
    mpi_link="$mpi_link;$w"
done
mpi_built=FALSE
[ "$mpi_enabled" = yes ] && mpi_built=TRUE
# As replacements for sed: \, | and & stand for themselves.
sed_text() {
    printf '%s' "$1" | sed -e 's/[\\|&]/\\&/g'
}
mpi_incs=$(sed_text "$mpi_incs") mpi_opts=$(sed_text "${mpi_opts#;}")
mpi_link=$(sed_text "$mpi_link")

# Path of DIR relative to the prefix, or nothing when DIR is outside it.
under_prefix() {
    case $1 in
        "$prefix"/*) printf '%s\n' "${1#"$prefix"/}" ;;
        *) ;;
    esac
}

lib_rel=$(under_prefix "$libdir")
inc_rel=$(under_prefix "$includedir")
if [ -n "$lib_rel" ] && [ -n "$inc_rel" ]; then
    # cmake/portsort, then one level per component of lib_rel (lib, or
    # lib/x86_64-linux-gnu), leads back to the prefix.
    up=../..
    rest=$lib_rel
    while [ -n "$rest" ]; do
        up=$up/..
        case $rest in
            */*) rest=${rest#*/} ;;
            *) rest= ;;
        esac
    done
    # A CMake variable, written literally into the file (not expanded here).
    # shellcheck disable=SC2016
    cm_libdir='${_portsort_prefix}/'$lib_rel
    # shellcheck disable=SC2016
    cm_incdir='${_portsort_prefix}/'$inc_rel
else
    up=.
    cm_libdir=$libdir
    cm_incdir=$includedir
fi

sed -e "s|@PACKAGE_VERSION@|$version|g" \
    -e "s|@PS_SO_MAJOR@|$so_major|g" \
    -e "s|@PS_CMAKE_UP@|$up|g" \
    -e "s|@PS_CMAKE_LIBDIR@|$cm_libdir|g" \
    -e "s|@PS_CMAKE_INCLUDEDIR@|$cm_incdir|g" \
    -e "s|@PS_CMAKE_MPI_BUILT@|$mpi_built|g" \
    -e "s|@PS_CMAKE_MPI_INCLUDES@|$mpi_incs|g" \
    -e "s|@PS_CMAKE_MPI_OPTIONS@|$mpi_opts|g" \
    -e "s|@PS_CMAKE_MPI_LINK@|$mpi_link|g" \
    "$template"
