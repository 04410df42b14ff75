// SPDX-License-Identifier: Apache-2.0
// A small kustomize for the tests (tests/deploy/overlays.sh, helm.sh): exactly the subset
// deploy/ uses, so that a Debian 12 machine without kubectl (its kubernetes-client 1.20 carries
// a kustomize too old for these files) renders the base and the overlays offline:
//   node kustomize.mjs NODE_MODULES DIR > out.json      (a JSON list of the objects)
// Supported: resources (files and directories), namespace, nameSuffix, images (newName,
// newTag), configMapGenerator (files, behavior create/merge/replace, options.labels,
// options.disableNameSuffixHash), patches given inline with a target {kind, name}: a JSON 6902
// list (add, replace, remove, test) or a strategic-merge `$patch: delete`. Anything else is an
// error, not ignored. Generated ConfigMap names get a content hash suffix (10 characters, not
// kustomize's own hash: the tests compare names with the suffix masked) and the pod templates'
// configMap volumes follow the rename.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { createRequire } from "node:module";

const [nm, top] = process.argv.slice(2);
const YAML = createRequire(path.join(nm, "noop.js"))("yaml");
const KNOWN = new Set(["apiVersion", "kind", "namespace", "resources", "nameSuffix", "images",
	"configMapGenerator", "patches"]);
// kinds without a namespace, which kustomize's namespace transformer leaves alone
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding",
	"CustomResourceDefinition", "PriorityClass", "StorageClass", "SecurityContextConstraints"]);
const die = (msg) => { console.error(`kustomize.mjs: ${msg}`); process.exit(1); };
const parse = (text, where) => {
	try { return YAML.parseAllDocuments(text, { uniqueKeys: true }).map((d) => {
		if (d.errors.length) throw d.errors[0];
		return d.toJS();
	}).filter((o) => o !== null); } catch (e) { die(`${where}: ${e.message}`); }
};

function podSpecs(o) {
	const s = o.spec && o.spec.template && o.spec.template.spec;
	return s ? [s] : [];
}
function renameConfigMap(objs, from, to) {
	for (const o of objs)
		for (const s of podSpecs(o))
			for (const v of s.volumes || [])
				if (v.configMap && v.configMap.name === from) v.configMap.name = to;
}
const ptr = (p) => p.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
function json6902(obj, ops, where) {
	for (const op of ops) {
		const keys = ptr(op.path), last = keys.pop();
		let cur = obj;
		for (const k of keys) {
			if (cur === null || typeof cur !== "object" || !(k in cur))
				die(`${where}: ${op.op} ${op.path}: no such parent`);
			cur = cur[k];
		}
		if (op.op === "add" || op.op === "replace") {
			if (op.op === "replace" && !(last in cur)) die(`${where}: replace ${op.path}: missing`);
			if (Array.isArray(cur)) {
				if (last === "-") cur.push(op.value);
				else if (op.op === "add") cur.splice(Number(last), 0, op.value);
				else cur[Number(last)] = op.value;
			} else cur[last] = op.value;
		} else if (op.op === "remove") {
			if (!(last in cur)) die(`${where}: remove ${op.path}: missing`);
			if (Array.isArray(cur)) cur.splice(Number(last), 1); else delete cur[last];
		} else if (op.op === "test") {
			if (JSON.stringify(cur[last]) !== JSON.stringify(op.value))
				die(`${where}: test ${op.path}: ${JSON.stringify(cur[last])}, not ${JSON.stringify(op.value)}`);
		} else die(`${where}: op ${op.op} not supported`);
	}
}

// build(DIR): the objects, each with a hidden _hash flag (a generated ConfigMap)
function build(dir) {
	const kfile = path.join(dir, "kustomization.yaml");
	const k = parse(fs.readFileSync(kfile, "utf8"), kfile)[0];
	for (const key of Object.keys(k)) if (!KNOWN.has(key)) die(`${kfile}: ${key} not supported`);
	let objs = [];
	for (const r of k.resources || []) {
		const p = path.resolve(dir, r);
		if (fs.statSync(p).isDirectory()) objs.push(...build(p));
		else objs.push(...parse(fs.readFileSync(p, "utf8"), p));
	}
	for (const g of k.configMapGenerator || []) {
		const data = {};
		for (const f of g.files || []) {
			const [key, file] = f.includes("=") ? f.split("=") : [path.basename(f), f];
			const p = path.resolve(dir, file);
			if (!p.startsWith(dir + path.sep)) die(`${kfile}: ${f}: not in or below ${dir}`);
			data[key] = fs.readFileSync(p, "utf8");
		}
		const opt = g.options || {};
		const behavior = g.behavior || "create";
		let cm = objs.find((o) => o.kind === "ConfigMap" && o._gen === g.name);
		if (behavior === "create") {
			if (cm) die(`${kfile}: ConfigMap ${g.name} exists`);
			cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: g.name }, _gen: g.name };
			objs.push(cm);
		} else if (!cm) die(`${kfile}: ${behavior}: no ConfigMap ${g.name} to ${behavior}`);
		if (behavior === "replace") { cm.data = data; cm.metadata.labels = {}; }
		else if (g.files) cm.data = { ...(cm.data || {}), ...data };
		if (opt.labels) cm.metadata.labels = { ...(cm.metadata.labels || {}), ...opt.labels };
		cm._hash = !opt.disableNameSuffixHash;
	}
	for (const p of k.patches || []) {
		if (!p.patch || !p.target || Object.keys(p.target).some((x) => x !== "kind" && x !== "name"))
			die(`${kfile}: only inline patches with a target {kind, name} are supported`);
		const hit = (o) => o.kind === p.target.kind && (o._orig || o.metadata.name) === p.target.name;
		if (!objs.some(hit)) die(`${kfile}: patch target ${p.target.kind}/${p.target.name}: none`);
		const body = parse(p.patch, `${kfile} patch`)[0];
		if (Array.isArray(body)) objs.filter(hit).forEach((o) => json6902(o, body, kfile));
		else if (body && body.$patch === "delete") objs = objs.filter((o) => !hit(o));
		else die(`${kfile}: only JSON 6902 patches and $patch: delete are supported`);
	}
	if (k.nameSuffix) {
		for (const o of objs) {
			if (o.kind === "Namespace") continue;
			const from = o.metadata.name, to = from + k.nameSuffix;
			o._orig = o._orig || from;
			o.metadata.name = to;
			if (o.kind === "ConfigMap") { renameConfigMap(objs, from, to); o._gen = to; }
		}
	}
	if (k.namespace)
		for (const o of objs) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
	for (const img of k.images || [])
		for (const o of objs)
			for (const s of podSpecs(o))
				for (const c of [...(s.initContainers || []), ...s.containers]) {
					const [name, tag] = c.image.split(":");
					if (name !== img.name) continue;
					c.image = `${img.newName || name}:${img.newTag || tag}`;
				}
	return objs;
}

const objs = build(path.resolve(top));
for (const o of objs) {
	if (o._hash) {
		const h = crypto.createHash("sha256").update(JSON.stringify({ kind: o.kind,
			name: o.metadata.name, data: o.data })).digest("hex").slice(0, 10);
		const to = `${o.metadata.name}-${h}`;
		renameConfigMap(objs, o.metadata.name, to);
		o.metadata.name = to;
	}
}
process.stdout.write(JSON.stringify(objs.map(({ _hash, _gen, _orig, ...o }) => o), null, 1) + "\n");
