#!/bin/sh
# SPDX-License-Identifier: MIT
# The documents of a clone stand on their own: (a) every relative Markdown link
# in a tracked .md file names an existing file (and heading, for #anchors);
# (b) no tracked file cites the numeric specs kept outside the repository (a
# bare "bfp" or "mlp" page name, or the word spec after "the", "codec" or
# "project's"): docs/contract-bfp.md and
# docs/contract-mlp.md hold the contract; (c) every repository path a tracked
# file names in backticks, and every docs/*.md path anywhere, exists.
# Usage: test_docs.sh [REPO_ROOT] (default: the current directory).
set -u
cd "${1:-.}" || exit 1
. tests/cli/report.sh
T=$(mktemp -d /tmp/quire-docs-XXXXXX)
trap 'rm -rf "$T"' EXIT

# The tracked files; outside a git checkout, every file but build output.
if ! git ls-files >"$T/files" 2>/dev/null || [ ! -s "$T/files" ]; then
	find . -type f ! -path './.git/*' ! -path './build*' ! -path './results/*' |
		sed 's|^\./||' >"$T/files"
fi
grep '\.md$' "$T/files" >"$T/md"
# A tracked file, or a folder holding one: what a clone has.
exists() {
	q=$(realpath -m --relative-to=. "$1")
	awk -v p="$q" '$0 == p || index($0, p "/") == 1 { found = 1; exit } END { exit !found }' "$T/files"
}

# GitHub's heading anchors of a Markdown file: lower case, punctuation dropped, spaces to '-'.
anchors() {
	sed -n 's/^#\{1,6\}[[:space:]]\{1,\}//p' "$1" | tr 'A-Z' 'a-z' |
		sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# (a) relative links: ](target) and ](target#anchor) outside code fences.
bad=0
while IFS= read -r f; do
	dir=$(dirname "$f")
	awk '/^```/ { fence = !fence; next } !fence { print FNR ": " $0 }' "$f" |
		grep -o '^[0-9]*: \|\]([^)[:space:]]*)' | while IFS= read -r tok; do
		case $tok in
		[0-9]*:*) line=${tok%%:*}; continue ;;
		esac
		target=${tok#](}
		target=${target%)}
		case $target in
		*://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		if [ -z "$path" ]; then
			file=$f
		else
			file=$dir/$path
		fi
		if ! exists "$file"; then
			echo "$f:$line: link to $target: no such file"
			echo x >>"$T/bad_a"
		elif [ -n "$anchor" ] && ! anchors "$file" | grep -q -x -F "$anchor"; then
			echo "$f:$line: link to $target: no such heading"
			echo x >>"$T/bad_a"
		fi
	done
done <"$T/md"
if [ -s "$T/bad_a" ]; then ko "relative Markdown links resolve"; else ok "relative Markdown links resolve ($(wc -l <"$T/md") files)"; fi

# (b) citations of the external specs. A bare spec name is one not part of a longer path or
# name (docs/mlp.md, contract-mlp.md); a Markdown link [..](..) is left to (a), which resolves
# it, so docs/README.md may link [mlp.md](mlp.md), the MLP engine's page beside it.
cite="(^|[^A-Za-z0-9_./-])(bfp|mlp)\\.md(\$|[^A-Za-z0-9_])|(\\bthe|\\bcodec|project's) specs?\\b"
: >"$T/bad_b"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	grep -I -n -i -E "$cite" "$f" 2>/dev/null | while IFS= read -r hit; do
		printf '%s\n' "$hit" | sed 's/\[[^]]*\]([^)]*)//g' | grep -q -i -E "$cite" &&
			printf '%s:%s\n' "$f" "$hit" >>"$T/bad_b"
	done
done <"$T/files"
if [ -s "$T/bad_b" ]; then
	sed 's/^/  /' "$T/bad_b"
	ko "no file cites a spec outside the repository ($(wc -l <"$T/bad_b") lines)"
else
	ok "no file cites a spec outside the repository"
fi

# (c) repository paths: `dir/...` in backticks in Markdown, and docs/*.md in any file. Paths with
# placeholders or wildcards (*, <, {, $, ...) are patterns, not paths.
tops='docs|include|hls|host|firmware|sim|tests|examples|mk|boards|driver|\.ci'
: >"$T/bad_c"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	{
		case $f in
		*.md) grep -o -E "\`($tops)/[A-Za-z0-9_./-]*\`" "$f" | tr -d '`' ;;
		esac
		grep -I -o -E "(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_/-]*\.md" "$f" | sed 's|^[^d]*||'
	} 2>/dev/null | sort -u | while IFS= read -r p; do
		# From the root, or from the file's own folder (host/README.md: include/quire.h).
		exists "$p" || exists "$(dirname "$f")/$p" || echo "$f: names $p: no such file" >>"$T/bad_c"
	done
done <"$T/files"
if [ -s "$T/bad_c" ]; then
	sed 's/^/  /' "$T/bad_c"
	ko "every repository path named exists"
else
	ok "every repository path named exists"
fi

summary "test_docs"
[ "$fail" -eq 0 ]
