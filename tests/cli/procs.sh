# SPDX-License-Identifier: MIT
# Sourced by the CLI test scripts: waiting, and finding this script's own processes
# (another test run may share the machine, so nothing here looks machine-wide).
wait_until() { # wait_until SECONDS COMMAND...: until the command succeeds, at most SECONDS
	limit=$(($1 * 20))
	shift
	i=0
	while ! "$@" && [ $i -lt $limit ]; do
		sleep 0.05
		i=$((i + 1))
	done
	"$@"
}
descendants() { # descendants PID: the processes below PID, one per line
	ps -e -o pid= -o ppid= | awk -v root="$1" '
		{ parent[$1 + 0] = $2 + 0 }
		END {
			for (p in parent) {
				q = parent[p]
				while (q != root + 0 && q > 1 && (q in parent))
					q = parent[q]
				if (q == root + 0)
					print p
			}
		}'
}
alive() { # alive PID...: some of them still runs (a zombie has ended)
	for p in "$@"; do
		case "$(ps -o stat= -p "$p" 2>/dev/null)" in
		"" | Z*) ;;
		*) return 0 ;;
		esac
	done
	return 1
}
none_alive() { ! alive "$@"; }
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; } # secs FROM TO
writing_stdout() { # writing_stdout PID: it sits in a write(2) to its fd 1 (a full pipe holds it)
	# /proc/PID/syscall: the number of the system call it is blocked in, then its arguments.
	case "$(uname -m)" in
	x86_64) nr=1 ;;
	aarch64 | riscv64) nr=64 ;;
	*) return 1 ;;
	esac
	case "$(cat "/proc/$1/syscall" 2>/dev/null)" in
	"$nr 0x1 "*) return 0 ;;
	esac
	return 1
}
