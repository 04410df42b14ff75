// SPDX-License-Identifier: Apache-2.0
// tests/vm/confine.sh's container settings, translated from the DaemonSet (not a hand copy):
//   node confine-argv.mjs RENDERED.json OUTDIR IMAGE
// RENDERED.json: deploy/ as kubectl kustomize renders it (tests/deploy/tools.sh: a JSON list
// with the DaemonSet and the generated catalog ConfigMap). For each container of the pod
// template that runs the rdma-qos image (init containers included; the kube-rbac-proxy
// sidecar needs an API server and is left out, as tests/deploy/image.sh does) it writes
// OUTDIR/<container>.argv, the `podman run` arguments one per line, as a kubelet with
// containerd or CRI-O would run it: hostNetwork/hostPID, user, read-only root,
// no-new-privileges, capabilities, seccomp (RuntimeDefault = the runtime's default filter,
// absent = Unconfined as with the kubelet), AppArmor (securityContext.appArmorProfile,
// else the beta annotation, else the runtime's default profile), SELinux type, every
// volumeMount (hostPath with its propagation, configMap materialised from RENDERED.json
// under OUTDIR/configmap/<name>, emptyDir as tmpfs), env, command and args. A variant of
// each: <container>.apparmor-default.argv (the runtime's default AppArmor profile instead).
// OUTDIR/<container>.mkdir: the hostPath directories of type DirectoryOrCreate;
// OUTDIR/<container>.map: "containerPath hostPath" for each hostPath mount.
// Resources (limits) and probes are not translated. Fails on anything it cannot translate.
import fs from "node:fs";
import path from "node:path";

const [rendered, outdir, image] = process.argv.slice(2);
const objs = JSON.parse(fs.readFileSync(rendered, "utf8"));
const dss = objs.filter((o) => o.kind === "DaemonSet");
if (dss.length !== 1) throw new Error(`${rendered}: ${dss.length} DaemonSets, not one`);
const ds = dss[0];
const tmpl = ds.spec.template;
const spec = tmpl.spec;
const annotations = tmpl.metadata.annotations || {};
const podSc = spec.securityContext || {};
const volumes = new Map((spec.volumes || []).map((v) => [v.name, v]));
// the ConfigMaps rendered with it, by name (the generator's hash suffix included)
const configMaps = new Map(objs.filter((o) => o.kind === "ConfigMap").map((o) => [o.metadata.name, o]));
const ours = (c) => /(^|\/)rdma-qos(:|@|$)/.test(c.image);

const propagation = { HostToContainer: "rslave", Bidirectional: "rshared", None: "rprivate" };

function translate(c, apparmorOverride) {
	const sc = { ...podSc, ...(c.securityContext || {}) };
	const a = ["--name", `rq-${c.name}`];
	if (spec.hostNetwork) a.push("--network", "host");
	if (spec.hostPID) a.push("--pid", "host");
	if (spec.hostIPC) a.push("--ipc", "host");
	if (sc.privileged) a.push("--privileged");
	if (sc.runAsUser !== undefined)
		a.push("--user", sc.runAsGroup !== undefined ? `${sc.runAsUser}:${sc.runAsGroup}` : `${sc.runAsUser}`);
	// podman's --read-only adds tmpfs on /run, /tmp, /var/tmp; the kubelet does not
	if (sc.readOnlyRootFilesystem) a.push("--read-only", "--read-only-tmpfs=false");
	if (sc.allowPrivilegeEscalation === false) a.push("--security-opt", "no-new-privileges");
	const caps = sc.capabilities || {};
	for (const d of caps.drop || []) a.push("--cap-drop", d.toLowerCase());
	for (const d of caps.add || []) a.push("--cap-add", d.toLowerCase());
	const sp = sc.seccompProfile;
	if (!sp || sp.type === "Unconfined") a.push("--security-opt", "seccomp=unconfined");
	else if (sp.type === "Localhost") a.push("--security-opt", `seccomp=${sp.localhostProfile}`);
	else if (sp.type !== "RuntimeDefault") throw new Error(`${c.name}: seccompProfile ${sp.type}`);
	let aa;
	const ap = sc.appArmorProfile;
	if (ap) aa = ap.type === "Localhost" ? ap.localhostProfile : ap.type === "Unconfined" ? "unconfined" : "default";
	else {
		const ann = annotations[`container.apparmor.security.beta.kubernetes.io/${c.name}`];
		aa = !ann || ann === "runtime/default" ? "default" : ann === "unconfined" ? "unconfined"
			: ann.replace(/^localhost\//, "");
	}
	if (apparmorOverride) aa = apparmorOverride;
	if (aa !== "default") a.push("--security-opt", `apparmor=${aa}`);
	const se = sc.seLinuxOptions;
	if (se && se.type) a.push("--security-opt", `label=type:${se.type}`);
	const mkdirs = [], map = [];
	for (const m of c.volumeMounts || []) {
		const v = volumes.get(m.name);
		if (!v) throw new Error(`${c.name}: volumeMount ${m.name} names no volume`);
		const opts = [];
		if (m.readOnly) opts.push("ro");
		if (v.hostPath) {
			if (m.mountPropagation) opts.push(propagation[m.mountPropagation]);
			a.push("-v", `${v.hostPath.path}:${m.mountPath}${opts.length ? ":" + opts.join(",") : ""}`);
			if (v.hostPath.type === "DirectoryOrCreate") mkdirs.push(v.hostPath.path);
			map.push(`${m.mountPath} ${v.hostPath.path}`);
		} else if (v.configMap) {
			const cm = configMaps.get(v.configMap.name);
			if (!cm) throw new Error(`${c.name}: no ConfigMap ${v.configMap.name} in ${rendered}`);
			const dir = path.join(outdir, "configmap", v.configMap.name);
			fs.mkdirSync(dir, { recursive: true });
			for (const [k, val] of Object.entries(cm.data || {})) fs.writeFileSync(path.join(dir, k), val);
			a.push("-v", `${dir}:${m.mountPath}:ro`);
		} else if (v.emptyDir) {
			a.push("--mount", `type=tmpfs,destination=${m.mountPath}`);
		} else throw new Error(`${c.name}: volume ${m.name}: only hostPath, configMap, emptyDir`);
	}
	for (const e of c.env || []) {
		if (e.value === undefined) throw new Error(`${c.name}: env ${e.name}: only plain values`);
		a.push("-e", `${e.name}=${e.value}`);
	}
	if (c.command) a.push("--entrypoint", JSON.stringify(c.command));
	a.push(image, ...(c.args || []));
	return { argv: a, mkdirs, map };
}

fs.mkdirSync(outdir, { recursive: true });
const cs = [...(spec.initContainers || []), ...spec.containers].filter(ours);
if (!cs.some((c) => c.name === "agent")) throw new Error(`${rendered}: no agent container with the rdma-qos image`);
for (const c of cs) {
	const w = (suffix, r) => fs.writeFileSync(path.join(outdir, `${c.name}${suffix}.argv`), r.argv.join("\n") + "\n");
	const r = translate(c);
	w("", r);
	fs.writeFileSync(path.join(outdir, `${c.name}.mkdir`), r.mkdirs.join("\n") + "\n");
	fs.writeFileSync(path.join(outdir, `${c.name}.map`), r.map.join("\n") + "\n");
	w(".apparmor-default", translate(c, "default"));
}
