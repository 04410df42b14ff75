// SPDX-License-Identifier: Apache-2.0
// Offline check of Kubernetes manifests (tests/deploy/manifests.sh):
//   node k8s-check.mjs NODE_MODULES OUTDIR FILE...
// Every YAML document is parsed strictly (duplicate keys are errors), then
// - built-in kinds: kubernetes-models' schema validation (types, enums,
//   required fields), plus an unknown-key walk over the TypeScript interfaces
//   the same package ships (its schemas allow unknown keys, the API server's
//   pruning or strict field validation would not);
// - prometheus-operator's kinds (ServiceMonitor, PrometheusRule, PodMonitor):
//   @kubernetes-models/prometheus-operator's schema validation, plus the same
//   unknown-key walk over the inline types of its .d.ts (a key tree);
// - other CRDs and the kustomization: crd-keys.json, key lists taken from the
//   operators' CRDs (see that file), with the same unknown-key walk.
// Each document is written as JSON to OUTDIR/<file>.<n>.json for the plugin's
// own `rdma-qos validate`. Exit 0, or 1 listing every problem.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [nm, outdir, ...files] = process.argv.slice(2);
const require = createRequire(path.join(nm, "noop.js"));
const YAML = require("yaml");
const here = path.dirname(new URL(import.meta.url).pathname);
const crds = JSON.parse(fs.readFileSync(path.join(here, "crd-keys.json"), "utf8"));
const problems = [];
const dtsCache = new Map();

// The first interface of a .d.ts file: its fields (name -> type text) and imports.
function loadIface(file) {
	if (dtsCache.has(file)) return dtsCache.get(file);
	let iface = null;
	if (fs.existsSync(file)) {
		const src = fs.readFileSync(file, "utf8");
		const imports = new Map();
		for (const m of src.matchAll(/import \{ ([^}]+) \} from "([^"]+)";/g)) {
			let spec = m[2];
			spec = spec.startsWith(".") ? path.resolve(path.dirname(file), spec)
				: path.join(nm, spec);
			spec = spec.replace(/\.js$/, "") + ".d.ts";
			for (const n of m[1].split(",")) imports.set(n.trim().split(" as ")[0], spec);
		}
		const body = src.match(/export interface (\w+)[^{]*\{\n([\s\S]*?)\n\}/);
		if (body) {
			const fields = new Map();
			for (const f of body[2].matchAll(/^ {4}"([^"]+)"\??: (.+)$/gm))
				fields.set(f[1], f[2].replace(/;$/, ""));
			iface = { name: body[1], fields, imports };
		}
	}
	dtsCache.set(file, iface);
	return iface;
}

// Walk @obj against an interface; @resolve(type text) gives the child's checker.
function walkIface(obj, iface, where) {
	if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return;
	for (const [k, v] of Object.entries(obj)) {
		const t = iface.fields.get(k);
		if (t === undefined) {
			problems.push(`${where}.${k}: unknown key (not in ${iface.name})`);
			continue;
		}
		const arr = t.match(/^Array<(\w+)>$/);
		const name = arr ? arr[1] : t;
		const file = iface.imports.get(name);
		const child = file && loadIface(file);
		if (!child) continue; // scalars, enums, maps, quantities, int-or-string
		const items = arr ? (Array.isArray(v) ? v : []) : [v];
		items.forEach((it, i) => walkIface(it, child, arr ? `${where}.${k}[${i}]` : `${where}.${k}`));
	}
}

// Our own key trees (crd-keys.json): {"key": subtree | "string" | "integer" | "boolean" | "map"
// | [subtree]}; "required" lists keys that must be present.
function walkTree(obj, tree, where) {
	if (typeof tree === "string") {
		const ok = { string: "string", integer: "number", boolean: "boolean", map: "object" }[tree];
		if (typeof obj !== ok || (tree === "integer" && !Number.isInteger(obj)))
			problems.push(`${where}: expected ${tree}`);
		return;
	}
	if (Array.isArray(tree)) {
		if (!Array.isArray(obj)) return problems.push(`${where}: expected a list`);
		return obj.forEach((it, i) => walkTree(it, tree[0], `${where}[${i}]`));
	}
	if (obj === null || typeof obj !== "object" || Array.isArray(obj))
		return problems.push(`${where}: expected an object`);
	for (const r of tree.required || [])
		if (!(r in obj)) problems.push(`${where}.${r}: required`);
	for (const [k, v] of Object.entries(obj)) {
		if (k === "required" || !(k in tree)) {
			problems.push(`${where}.${k}: unknown key`);
			continue;
		}
		walkTree(v, tree[k], `${where}.${k}`);
	}
}

// The inline object types of a model's interface (@kubernetes-models/prometheus-operator writes
// nested CRD schemas inline): a tree {key: subtree | null}; {"*": ...} for an index signature
// (a map: any key), null for a leaf. Arrays of objects are walked item by item.
function inlineTree(file) {
	if (dtsCache.has(file)) return dtsCache.get(file);
	const lines = fs.readFileSync(file, "utf8").split("\n");
	const start = lines.findIndex((l) => /^export interface \w+ \{$/.test(l));
	const root = {}, stack = [root];
	for (const l of lines.slice(start + 1)) {
		if (/^\}/.test(l)) break;
		const m = l.match(/^ *(?:"([^"]+)"\??|\[key: string\]): (.*)$/);
		if (m) {
			const key = m[1] === undefined ? "*" : m[1];
			if (/(\{|Array<\{)$/.test(m[2])) {
				const child = {};
				stack[stack.length - 1][key] = child;
				stack.push(child);
			} else stack[stack.length - 1][key] = null;
		} else if (/^ *\}/.test(l)) stack.pop();
	}
	dtsCache.set(file, root);
	return root;
}
function walkInline(obj, tree, where) {
	if (tree === null || obj === null || typeof obj !== "object") return;
	if (Array.isArray(obj)) return obj.forEach((it, i) => walkInline(it, tree, `${where}[${i}]`));
	for (const [k, v] of Object.entries(obj)) {
		const t = k in tree ? tree[k] : "*" in tree ? tree["*"] : undefined;
		if (t === undefined) problems.push(`${where}.${k}: unknown key`);
		else walkInline(v, t, `${where}.${k}`);
	}
}
const promOp = path.join(nm, "@kubernetes-models/prometheus-operator");

const metaFile = path.join(nm, "@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta.d.ts");
// the ES module of a model: .mjs beside a CommonJS .js (4.x), else the .js (5.x is ESM only)
const esm = (dts) => {
	const base = dts.replace(/\.d\.ts$/, "");
	return pathToFileURL(fs.existsSync(`${base}.mjs`) ? `${base}.mjs` : `${base}.js`);
};

async function checkDoc(obj, where) {
	const gv = String(obj.apiVersion || ""), kind = String(obj.kind || "");
	const pdts = gv === "monitoring.coreos.com/v1" && path.join(promOp, gv, `${kind}.d.ts`);
	if (pdts && fs.existsSync(pdts)) {
		const mod = await import(esm(pdts));
		try { new mod[kind](obj).validate(); } catch (e) { problems.push(`${where}: ${e.message}`); }
		const { metadata, ...rest } = obj;
		walkInline(rest, inlineTree(pdts), where);
		if (metadata !== undefined) walkIface(metadata, loadIface(metaFile), `${where}.metadata`);
		return;
	}
	const crd = crds.kinds[`${gv}/${kind}`];
	if (crd) {
		const { metadata, apiVersion, kind: _k, ...rest } = obj;
		walkTree(rest, crd, where);
		if (metadata !== undefined) {
			const { ObjectMeta } = await import(esm(metaFile));
			try { new ObjectMeta(metadata).validate(); } catch (e) { problems.push(`${where}.metadata: ${e.message}`); }
			walkIface(metadata, loadIface(metaFile), `${where}.metadata`);
		}
		return;
	}
	const dir = gv.includes("/") ? gv : gv === "v1" ? "v1" : null;
	const dts = dir && path.join(nm, "kubernetes-models", dir, `${kind}.d.ts`);
	if (!dts || !fs.existsSync(dts))
		return problems.push(`${where}: ${gv} ${kind}: neither a built-in kind nor in crd-keys.json`);
	const mod = await import(esm(dts));
	try { new mod[kind](obj).validate(); } catch (e) { problems.push(`${where}: ${e.message}`); }
	walkIface(obj, loadIface(dts), where);
}

fs.mkdirSync(outdir, { recursive: true });
let n = 0;
for (const file of files) {
	const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"), { uniqueKeys: true, prettyErrors: false });
	let i = 0;
	for (const d of docs) {
		const where = `${path.basename(file)}#${i}`;
		for (const e of [...d.errors, ...d.warnings]) problems.push(`${where}: YAML: ${e.message}`);
		const obj = d.toJS();
		if (obj === null) continue;
		await checkDoc(obj, where);
		fs.writeFileSync(path.join(outdir, `${path.basename(file)}.${i}.json`), JSON.stringify(obj));
		i++;
		n++;
	}
}
for (const p of problems) console.log(`PROBLEM: ${p}`);
console.log(`${n} documents in ${files.length} files, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
