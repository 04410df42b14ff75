// SPDX-License-Identifier: Apache-2.0
// tests/deploy/manifests.sh: a kustomization rendered offline, without kustomize (a fresh
// Debian 12 has none that reads `patches:`), for the fields deploy/ uses:
//   node kustomize.mjs NODE_MODULES DIR > rendered.json   (a JSON list of objects)
// resources (files, or directories with their own kustomization, recursively), namespace
// (every object but a Namespace and the cluster-scoped kinds below), images (newName,
// newTag) and patches (strategic merge: maps merge, lists of named objects merge by name,
// other lists are replaced). Anything else in a kustomization is an error.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [nm, top] = process.argv.slice(2);
const YAML = createRequire(path.join(nm, "noop.js"))("yaml");
const clusterScoped = new Set(["Namespace", "SecurityContextConstraints", "ClusterRole",
	"ClusterRoleBinding", "CustomResourceDefinition"]);
const known = new Set(["apiVersion", "kind", "namespace", "resources", "images", "patches"]);

const docs = (file) => YAML.parseAllDocuments(fs.readFileSync(file, "utf8"), { uniqueKeys: true })
	.map((d) => d.toJS()).filter((o) => o !== null);

function merge(base, patch) {
	if (Array.isArray(base) && Array.isArray(patch) &&
	    [...base, ...patch].every((e) => e && typeof e === "object" && "name" in e)) {
		const out = base.map((e) => ({ ...e }));
		for (const p of patch) {
			const i = out.findIndex((e) => e.name === p.name);
			if (i < 0) out.push(p);
			else out[i] = merge(out[i], p);
		}
		return out;
	}
	if (base && patch && typeof base === "object" && typeof patch === "object" &&
	    !Array.isArray(base) && !Array.isArray(patch)) {
		const out = { ...base };
		for (const [k, v] of Object.entries(patch)) out[k] = k in base ? merge(base[k], v) : v;
		return out;
	}
	return patch;
}

function build(dir) {
	const k = docs(path.join(dir, "kustomization.yaml"))[0];
	for (const key of Object.keys(k))
		if (!known.has(key)) throw new Error(`${dir}/kustomization.yaml: ${key}: not rendered here`);
	let objs = [];
	for (const r of k.resources || []) {
		const p = path.resolve(dir, r);
		objs.push(...(fs.statSync(p).isDirectory() ? build(p) : docs(p)));
	}
	if (k.namespace)
		for (const o of objs)
			if (!clusterScoped.has(o.kind)) o.metadata = { ...o.metadata, namespace: k.namespace };
	for (const img of k.images || []) {
		for (const o of objs) {
			const ps = o.spec && o.spec.template && o.spec.template.spec;
			if (!ps) continue;
			for (const c of [...(ps.initContainers || []), ...(ps.containers || [])]) {
				const [name, tag] = c.image.split(":");
				if (name === img.name)
					c.image = `${img.newName || name}:${img.newTag || tag}`;
			}
		}
	}
	for (const p of k.patches || []) {
		if (!p.path) throw new Error(`${dir}: only patches with a path`);
		for (const pd of docs(path.resolve(dir, p.path))) {
			const i = objs.findIndex((o) => o.kind === pd.kind && o.metadata.name === pd.metadata.name);
			if (i < 0) throw new Error(`${p.path}: no ${pd.kind} ${pd.metadata.name} to patch`);
			objs[i] = merge(objs[i], pd);
		}
	}
	return objs;
}

process.stdout.write(JSON.stringify(build(path.resolve(top)), null, 1) + "\n");
