# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034
# Sourced by tests/deploy/manifests.sh, overlays.sh and helm.sh: the pinned node modules (one
# cache), installed when missing; sets NM, or skips the whole part.
NPM_CACHE=${RQ_NPM_CACHE:-/var/tmp/rdma-qos-npm}
# pinned: what the checks were written against (4.5.1: node >= 14, Debian 12 has 18; 5.x needs 22)
# @kubernetes-models/prometheus-operator 4.4.4: ServiceMonitor and PrometheusRule (with kubernetes-models 4.5.1)
NPM_PKGS=(kubernetes-models@4.5.1 @kubernetes-models/prometheus-operator@4.4.4 yaml@2.9.1)
npm_ready() {
	local p
	for p in "${NPM_PKGS[@]}"; do
		[ "$(jq -r .version "$NPM_CACHE/node_modules/${p%@*}/package.json" 2>/dev/null)" = \
			"${p##*@}" ] || return 1
	done
}
ensure_npm() {
	npm_ready && return 0
	command -v npm >/dev/null || { echo "no npm"; return 1; }
	mkdir -p "$NPM_CACHE" && echo '{"private": true}' > "$NPM_CACHE/package.json"
	npm install --prefix "$NPM_CACHE" --no-audit --no-fund --loglevel=error "${NPM_PKGS[@]}" >&2 &&
		npm_ready
}
if ! command -v node >/dev/null; then
	skip "$(basename "$0")" "no node (nodejs)"
	finish
fi
if ! why=$(ensure_npm); then
	skip "$(basename "$0")" "npm packages ${NPM_PKGS[*]} not installable: $why"
	finish
fi
NM=$NPM_CACHE/node_modules
