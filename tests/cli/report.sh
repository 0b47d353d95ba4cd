# SPDX-License-Identifier: MIT
# Sourced by the CLI test scripts: count and print passed, failed and skipped checks.
# A script ends with `summary NAME`: "NAME: N passed, N failed, N skipped" (tests/run.sh
# reads that line; the ", N skipped" is optional there, for programs that never skip).
pass=0
fail=0
skipped=0
ok() {
	pass=$((pass + 1))
	echo "ok   $1"
}
ko() {
	fail=$((fail + 1))
	echo "FAIL $1"
}
# A check that cannot run here for a reason the user can act on that is not a missing
# package of mk/debian-packages.txt (not root, say): said, and counted, so that a run where
# half the checks skipped does not read like one where all ran. With QUIRE_TEST_NO_SKIP=1
# (CI) a skip is a failure: there every check must run.
skip() {
	if [ "${QUIRE_TEST_NO_SKIP:-0}" = 1 ]; then
		ko "not run, and QUIRE_TEST_NO_SKIP=1 forbids skips: $1"
	else
		skipped=$((skipped + 1))
		echo "SKIP $1"
	fi
}
# has_pkg PKG: the Debian package is installed, asked of dpkg, not of the code under test.
has_pkg() {
	[ "$(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}
# missing_pkg WHAT PKG...: a package of mk/debian-packages.txt is missing: a failure that
# names it (make test's dependencies are that list; sh mk/deps.sh installs it), never a skip.
missing_pkg() {
	what=$1
	shift
	ko "$what: missing package(s) of mk/debian-packages.txt: apt-get install $* (or sh mk/deps.sh)"
}
# has_opencl: an OpenCL platform is installed, decided apart from quire's opencl backend
# (the code under test, whose failure must fail its tests, not skip them): the ICD loader's
# package and a vendor file (pocl-opencl-icd's /etc/OpenCL/vendors/pocl.icd).
has_opencl() {
	has_pkg ocl-icd-libopencl1 && has_pkg pocl-opencl-icd &&
		ls "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*.icd >/dev/null 2>&1
}
# has_mpi: MPI as mk/debian-packages.txt lists it, decided by mpirun itself and the package
# of MPI's headers, not by what the build made of them.
has_mpi() {
	mpirun --version >/dev/null 2>&1 && has_pkg libopenmpi-dev
}
# need_mpi WHAT [PROGRAM]: true if MPI is installed and PROGRAM (built with it) is there;
# else a failure saying what did not run and why (the packages, or `make test`, which builds
# what it runs), and false.
need_mpi() {
	if ! has_mpi; then
		missing_pkg "no MPI: $1 not run" openmpi-bin libopenmpi-dev
		return 1
	fi
	if [ -n "${2:-}" ] && [ ! -x "$2" ]; then
		ko "$1 not run: no $2 (built with MPI): run make test"
		return 1
	fi
}
summary() {
	echo "$1: $pass passed, $fail failed, $skipped skipped"
}
