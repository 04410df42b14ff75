# SPDX-License-Identifier: Apache-2.0
# Sourced by scripts that need `apt-get source` (the cJSON archive the static
# build links, cnitool for the client tests). Debian 12's images list only
# binary packages.
#
# add_deb_src: a deb-src entry for bookworm, bookworm-updates and
# bookworm-security, so a source package comes in the version (security
# fixes included) its binary package has. The entry must agree with the deb
# entry for the same URI and suite on Signed-By, or apt refuses every source
# list ("Conflicting values set for option Signed-By"): Debian 12's deb822
# debian.sources sets it, a classic sources.list does not. Try both
# spellings; leave none that breaks apt. Needs root.
add_deb_src() {
	local f=/etc/apt/sources.list.d/rq-bookworm-src.sources
	local kr=/usr/share/keyrings/debian-archive-keyring.gpg signed
	for signed in "Signed-By: $kr" ""; do
		printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n%s\n\n' \
			http://deb.debian.org/debian 'bookworm bookworm-updates' "$signed" \
			http://deb.debian.org/debian-security bookworm-security "$signed" > "$f"
		apt-get -o DPkg::Lock::Timeout=600 update -q >&2 && return 0
	done
	rm -f "$f"
	apt-get -o DPkg::Lock::Timeout=600 update -q >&2
	return 1
}

# apt_source_download PKG [VERSION]: the source package's files into the current directory;
# adds the deb-src entry when apt has none yet. With VERSION, that version or nothing.
apt_source_download() {
	local spec=$1${2:+=$2}
	apt-get source --download-only "$spec" >&2 2>/dev/null && return 0
	[ "$(id -u)" = 0 ] || { echo "apt-get source $spec: no deb-src entry, and adding one needs root" >&2; return 1; }
	add_deb_src && apt-get source --download-only "$spec" >&2
}
