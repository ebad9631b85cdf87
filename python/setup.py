"""Build step of the portsort wheel: libportsort itself, bundled inside.

`pip install ./python` (or `pip wheel ./python`) runs setuptools, which
calls build_py; ours then builds the C library from the tree one directory
above python/ with the project's own configure and make, installs it into a
staging directory, and copies the shared library and its backend modules
into the package as

    portsort/_lib/libportsort.so.0
    portsort/_lib/libportsort/ps_*.so

The library finds its modules in the directory beside its own file (dladdr,
lib/ps_module.c), so the OpenCL (and CUDA/HIP) modules load from there
wherever pip installs the package; portsort/_clib.py loads the bundled
library unless $PORTSORT_LIBRARY names another.

Environment variables read here (not by the installed package):

  PORTSORT_SOURCE_DIR      the libportsort source tree (default: the
                           directory above this file).  Needed when the
                           build runs on a copy of python/ alone, such as
                           a wheel built from this package's sdist.
  PORTSORT_CONFIGURE_ARGS  more arguments for configure, split as a shell
                           would, e.g. "--with-cuda --with-cuda-arch=sm_90"
                           to bundle the CUDA module too.
  PORTSORT_BUILD_JOBS      make's -j (default: the number of CPUs).
  PORTSORT_BUNDLE=0        build no library: a pure py3-none-any package
                           that uses the installed libportsort (the route
                           for a library installed by hand, or by a
                           distribution, with backends of its own).
"""

import os
import shlex
import shutil
import subprocess

from setuptools import Command, Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 carries bdist_wheel itself
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # older setuptools, with the wheel package beside it
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))

# The library's soname, the name _clib.py loads the bundled copy by.
SONAME = "libportsort.so.0"
# configure's package name, which is also the module directory's name
# beside the library (PS_MODULE_SUBDIR in lib/local.mk).
MODULE_SUBDIR = "libportsort"
# The configured prefix is never used at run time: the bundled library
# finds its modules beside itself first.  A prefix that exists nowhere
# keeps the compiled-in module directory (the library's last resort) from
# loading another build's modules into the wheel's library.
STAGE_PREFIX = "/nonexistent/portsort-wheel"
# configure arguments of every wheel build: no benchmark programs (not
# installed, and the slowest part of the build), no stand-in test module,
# no static library and no libportsort_mpi (the package uses neither).
# CUDA and HIP stay configure's default (off): nvcc and hipcc builds take
# minutes per GPU target; PORTSORT_CONFIGURE_ARGS turns them on.
BASE_CONFIGURE_ARGS = ["--disable-benchmarks", "--disable-sample-backend",
                       "--disable-static", "--without-mpi",
                       "--prefix=" + STAGE_PREFIX,
                       "--libdir=" + STAGE_PREFIX + "/lib"]


def bundling():
    """Whether to build and bundle the library (PORTSORT_BUNDLE unset, or
    anything but 0/no/off/false)."""
    value = os.environ.get("PORTSORT_BUNDLE", "1").strip().lower()
    return value not in ("0", "no", "off", "false")


class BuildError(RuntimeError):
    """The C library could not be built; the message says what to do."""


def find_source_dir():
    """The libportsort source tree, checked by the files it must hold."""
    named = os.environ.get("PORTSORT_SOURCE_DIR")
    src = os.path.abspath(named or os.path.join(HERE, os.pardir))
    if not all(os.path.isfile(os.path.join(src, f))
               for f in ("configure.ac", "lib/portsort.h")):
        how = ("$PORTSORT_SOURCE_DIR" if named
               else "the directory above python/")
        raise BuildError(
            "portsort: the libportsort C sources are not in %s (%s).  The "
            "wheel bundles the library, built from the source tree that "
            "python/ belongs to: run pip on python/ inside a libportsort "
            "checkout or release tarball, or set PORTSORT_SOURCE_DIR to "
            "that tree." % (src, how))
    return src


def ensure_configure(src):
    """A git checkout has no configure script until autoreconf makes it (a
    release tarball has one); an in-tree build would refuse ours."""
    if os.path.exists(os.path.join(src, "config.status")):
        raise BuildError(
            "portsort: %s was configured in place (config.status is there); "
            "the wheel builds in a directory of its own, which configure "
            "refuses then: run `make distclean` in %s first (or, to use "
            "the library installed from there instead of bundling one, "
            "set PORTSORT_BUNDLE=0)." % (src, src))
    if os.path.isfile(os.path.join(src, "configure")):
        return
    if shutil.which("autoreconf") is None:
        raise BuildError(
            "portsort: %s has no configure script and autoreconf is not "
            "installed: install autoconf, automake, libtool and pkg-config "
            "(Debian: apt-get install autoconf automake libtool pkg-config) "
            "or build from a release tarball, which has configure." % src)
    run(["autoreconf", "-fi"], cwd=src)


def run(cmd, cwd):
    print("portsort: %s (in %s)" % (" ".join(shlex.quote(c) for c in cmd),
                                    cwd), flush=True)
    try:
        subprocess.run(cmd, cwd=cwd, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError("portsort: building libportsort failed: %s" % exc)


class build_libportsort(Command):
    """configure && make && make install-strip DESTDIR=<stage>, then copy
    the library and its modules into the package."""

    description = "build libportsort and bundle it in the package"
    user_options = []

    def initialize_options(self):
        self.build_temp = None
        self.build_lib = None

    def finalize_options(self):
        self.set_undefined_options("build", ("build_temp", "build_temp"),
                                   ("build_lib", "build_lib"))

    def run(self):
        src = find_source_dir()
        ensure_configure(src)
        build = os.path.abspath(os.path.join(self.build_temp, "libportsort"))
        stage = os.path.abspath(os.path.join(self.build_temp, "stage"))
        os.makedirs(build, exist_ok=True)
        self.configure(src, build)
        jobs = os.environ.get("PORTSORT_BUILD_JOBS") or str(os.cpu_count() or 1)
        run(["make", "-j" + jobs], cwd=build)
        # A fresh stage each time: a module left from an earlier build
        # with other arguments must not reach the wheel.
        shutil.rmtree(stage, ignore_errors=True)
        run(["make", "install-strip", "DESTDIR=" + stage], cwd=build)
        self.bundle(stage + STAGE_PREFIX + "/lib")

    def configure(self, src, build):
        """Run configure unless this build directory was configured with
        the same arguments (a second pip run then only re-makes)."""
        args = BASE_CONFIGURE_ARGS + shlex.split(
            os.environ.get("PORTSORT_CONFIGURE_ARGS", ""))
        stamp = os.path.join(build, "portsort-configure-args")
        line = "\n".join([src] + args) + "\n"
        if os.path.exists(os.path.join(build, "config.status")):
            try:
                with open(stamp) as f:
                    if f.read() == line:
                        return
            except OSError:
                pass
        run([os.path.join(src, "configure")] + args, cwd=build)
        with open(stamp, "w") as f:
            f.write(line)

    def bundle(self, libdir):
        dest = os.path.join(self.build_lib, "portsort", "_lib")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(os.path.join(dest, MODULE_SUBDIR))
        # The real file under the soname: a wheel holds no symlinks.
        shutil.copyfile(os.path.realpath(os.path.join(libdir, SONAME)),
                        os.path.join(dest, SONAME))
        os.chmod(os.path.join(dest, SONAME), 0o755)
        moddir = os.path.join(libdir, MODULE_SUBDIR)
        modules = sorted(f for f in os.listdir(moddir) if f.endswith(".so")) \
            if os.path.isdir(moddir) else []
        for name in modules:
            shutil.copyfile(os.path.join(moddir, name),
                            os.path.join(dest, MODULE_SUBDIR, name))
            os.chmod(os.path.join(dest, MODULE_SUBDIR, name), 0o755)
        print("portsort: bundled %s with modules: %s"
              % (SONAME, " ".join(modules) or "none"), flush=True)


class build_py_with_library(build_py):
    """The Python files, then the library beside them."""

    def run(self):
        super().run()
        if bundling():
            self.run_command("build_libportsort")
        else:
            # A copy bundled by an earlier build in this directory must
            # not reach a package that says it has none.
            shutil.rmtree(os.path.join(self.build_lib, "portsort", "_lib"),
                          ignore_errors=True)


class BinaryDistribution(Distribution):
    """A distribution that holds compiled code (the bundled library): so
    the wheel is a platform wheel, installed into platlib, which auditwheel
    requires of a wheel with shared libraries."""

    def has_ext_modules(self):
        return bundling()


class bdist_wheel_any_python(bdist_wheel):
    """Tagged for this platform but any Python 3 (py3-none-<platform>):
    the package reaches the library through ctypes only, so it depends on
    no Python ABI, and one wheel serves every Python 3 of the platform."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat if bundling() else "any"


setup(distclass=BinaryDistribution,
      cmdclass={"build_libportsort": build_libportsort,
                "build_py": build_py_with_library,
                "bdist_wheel": bdist_wheel_any_python})
