# SPDX-License-Identifier: MIT
# Sourced by the CLI test scripts: count and print passed and failed checks.
pass=0
fail=0
ok() {
	pass=$((pass + 1))
	echo "ok   $1"
}
ko() {
	fail=$((fail + 1))
	echo "FAIL $1"
}
