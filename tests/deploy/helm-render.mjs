// SPDX-License-Identifier: Apache-2.0
// Renders deploy/helm/rdma-qos offline for tests/deploy/helm.sh (Helm is not packaged in
// Debian 12): exactly the Go-template subset the chart keeps to, and an error on anything
// else, never a silent pass-through.
//   node helm-render.mjs NODE_MODULES CHART_DIR OUTDIR [VALUES.json...]
// Each VALUES file is merged over values.yaml in turn (maps merge, other values replace, as
// `helm -f`); the release is "rdma-qos" in namespace "rdma-qos" unless the values carry
// {"_release": {"Name", "Namespace"}}. Writes OUTDIR/<template>.yaml for each template
// that renders to something and prints the objects as a JSON list.
// The subset: text, {{/* comments */}}, {{- and -}} trimming; actions `if PIPE`, `else`,
// `range PIPE` (over a list; `.` is the item, `$` the root), `define "name"`, `end`;
// pipelines of: .Field.Path, $.Field.Path, ., $, "strings", numbers, true/false and the
// functions toYaml, nindent N, indent N, include "name" CTX, quote, default D V, sha256sum,
// not. A field that is missing when printed is an error (Helm would print nothing).
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { createRequire } from "node:module";

const [nm, chart, outdir, ...valueFiles] = process.argv.slice(2);
const YAML = createRequire(path.join(nm, "noop.js"))("yaml");
const die = (m) => { throw new Error(m); };

// --- parsing: text and actions into a tree
function lex(src, file) {
	const toks = [];
	let i = 0;
	while (i < src.length) {
		const j = src.indexOf("{{", i);
		if (j < 0) { toks.push({ t: "text", v: src.slice(i) }); break; }
		toks.push({ t: "text", v: src.slice(i, j) });
		const k = src.indexOf("}}", j);
		if (k < 0) die(`${file}: unclosed {{`);
		let body = src.slice(j + 2, k);
		const lt = body.startsWith("-") && /^-\s/.test(body), rt = /\s-$/.test(body);
		if (lt) body = body.slice(1);
		if (rt) body = body.slice(0, -1);
		toks.push({ t: "act", v: body.trim(), lt, rt });
		i = k + 2;
	}
	// trimming
	for (let n = 0; n < toks.length; n++) {
		if (toks[n].t !== "act") continue;
		if (toks[n].lt && n > 0 && toks[n - 1].t === "text") toks[n - 1].v = toks[n - 1].v.replace(/\s+$/, "");
		if (toks[n].rt && n + 1 < toks.length && toks[n + 1].t === "text") toks[n + 1].v = toks[n + 1].v.replace(/^\s+/, "");
	}
	return toks.filter((t) => !(t.t === "act" && t.v.startsWith("/*") && t.v.endsWith("*/")));
}
function parse(toks, file, defines) {
	let pos = 0;
	function block(stops) {
		const out = [];
		while (pos < toks.length) {
			const tk = toks[pos];
			if (tk.t === "text") { out.push({ k: "text", v: tk.v }); pos++; continue; }
			const [kw, ...rest] = tk.v.split(/\s+/);
			const arg = tk.v.slice(kw.length).trim();
			if (stops.includes(kw)) return { out, stop: kw };
			pos++;
			if (kw === "if" || kw === "range") {
				const body = block(["else", "end"]);
				let els = [];
				if (body.stop === "else") {
					pos++;
					const e = block(["end"]);
					if (e.stop !== "end") die(`${file}: ${kw} without end`);
					els = e.out;
				} else if (body.stop !== "end") die(`${file}: ${kw} without end`);
				pos++;
				out.push({ k: kw, pipe: arg, body: body.out, els });
			} else if (kw === "define") {
				const name = JSON.parse(arg);
				const b = block(["end"]);
				if (b.stop !== "end") die(`${file}: define without end`);
				pos++;
				defines[name] = b.out;
			} else if (["else", "end", "with", "block", "template", "break", "continue"].includes(kw)) {
				die(`${file}: {{${tk.v}}} not supported (or unbalanced)`);
			} else {
				if (rest.length && /^\$\w+$/.test(kw)) die(`${file}: variables not supported`);
				out.push({ k: "expr", pipe: tk.v });
			}
		}
		return { out, stop: null };
	}
	const r = block([]);
	return r.out;
}

// --- evaluation
function words(s) {
	const out = [];
	const re = /\s*("(?:[^"\\]|\\.)*"|[^\s|"]+|\|)/g;
	let m;
	while ((m = re.exec(s))) out.push(m[1]);
	return out;
}
function field(base, p, where) {
	let cur = base;
	for (const k of p.split(".").filter(Boolean)) {
		if (cur === null || cur === undefined || typeof cur !== "object") return undefined;
		cur = Object.prototype.hasOwnProperty.call(cur, k) ? cur[k] : undefined;
	}
	return cur;
}
const truthy = (v) => !(v === undefined || v === null || v === false || v === 0 || v === "" ||
	(Array.isArray(v) && v.length === 0) || (typeof v === "object" && !Array.isArray(v) &&
	v !== null && Object.keys(v).length === 0));
function str(v, where) {
	if (v === undefined || v === null) die(`${where}: printing a missing value`);
	if (typeof v === "object") die(`${where}: printing a map or list (use toYaml)`);
	return String(v);
}
const toYaml = (v) => (v === undefined || v === null ? "null" :
	YAML.stringify(v, { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, ""));
const indentBy = (n, s) => s.split("\n").map((l) => " ".repeat(n) + l).join("\n");

function evalPipe(pipe, ctx, where) {
	const cmds = [];
	let cur = [];
	for (const w of words(pipe)) {
		if (w === "|") { cmds.push(cur); cur = []; } else cur.push(w);
	}
	cmds.push(cur);
	let val, piped = false;
	for (const cmd of cmds) {
		if (!cmd.length) die(`${where}: empty command in "${pipe}"`);
		const atom = (w) => {
			if (w.startsWith('"')) return JSON.parse(w);
			if (/^-?\d+(\.\d+)?$/.test(w)) return Number(w);
			if (w === "true" || w === "false") return w === "true";
			if (w === ".") return ctx.dot;
			if (w === "$") return ctx.root;
			if (w.startsWith("$.")) return field(ctx.root, w.slice(2), where);
			if (w.startsWith(".")) return field(ctx.dot, w.slice(1), where);
			die(`${where}: "${w}" not supported in "${pipe}"`);
		};
		const [head, ...rest] = cmd;
		if (/^[a-zA-Z]\w*$/.test(head) && !["true", "false"].includes(head)) {
			const args = rest.map(atom);
			if (piped) args.push(val);
			val = call(head, args, ctx, where);
		} else {
			if (cmd.length > 1 || piped) die(`${where}: "${pipe}": a value cannot take arguments`);
			val = atom(head);
		}
		piped = true;
	}
	return val;
}
function call(fn, a, ctx, where) {
	const need = (n) => { if (a.length !== n) die(`${where}: ${fn} takes ${n} arguments`); };
	switch (fn) {
	case "toYaml": need(1); return toYaml(a[0]);
	case "nindent": need(2); return "\n" + indentBy(a[0], str(a[1], where));
	case "indent": need(2); return indentBy(a[0], str(a[1], where));
	case "quote": need(1); return JSON.stringify(a[0] === undefined || a[0] === null ? "" : String(a[0]));
	case "default": need(2); return truthy(a[1]) ? a[1] : a[0];
	case "sha256sum": need(1); return crypto.createHash("sha256").update(str(a[0], where)).digest("hex");
	case "not": need(1); return !truthy(a[0]);
	case "include": {
		need(2);
		const body = ctx.defines[a[0]];
		if (!body) die(`${where}: include "${a[0]}": not defined`);
		return run(body, { ...ctx, dot: a[1] }, `${where} > ${a[0]}`);
	}
	default: die(`${where}: function ${fn} not supported`);
	}
}
function run(nodes, ctx, where) {
	let out = "";
	for (const n of nodes) {
		if (n.k === "text") out += n.v;
		else if (n.k === "expr") {
			const v = evalPipe(n.pipe, ctx, where);
			out += str(v, `${where}: {{ ${n.pipe} }}`);
		} else if (n.k === "if") {
			out += run(truthy(evalPipe(n.pipe, ctx, where)) ? n.body : n.els, ctx, where);
		} else if (n.k === "range") {
			const list = evalPipe(n.pipe, ctx, where);
			if (list !== undefined && list !== null && !Array.isArray(list))
				die(`${where}: range over a map is not supported`);
			if (!truthy(list)) out += run(n.els, ctx, where);
			else for (const it of list) out += run(n.body, { ...ctx, dot: it }, where);
		}
	}
	return out;
}

// --- the chart
const merge = (a, b) => {
	if (b === null || typeof b !== "object" || Array.isArray(b) || a === null ||
		typeof a !== "object" || Array.isArray(a)) return b;
	const o = { ...a };
	for (const [k, v] of Object.entries(b)) o[k] = k in a ? merge(a[k], v) : v;
	return o;
};
try {
	const meta = YAML.parse(fs.readFileSync(path.join(chart, "Chart.yaml"), "utf8"));
	let values = YAML.parse(fs.readFileSync(path.join(chart, "values.yaml"), "utf8"));
	for (const f of valueFiles) values = merge(values, JSON.parse(fs.readFileSync(f, "utf8")));
	const release = { Name: "rdma-qos", Namespace: "rdma-qos", Service: "Helm",
		...(values._release || {}) };
	delete values._release;
	const root = { Values: values, Release: release,
		Chart: { Name: meta.name, Version: meta.version, AppVersion: meta.appVersion } };
	const tdir = path.join(chart, "templates");
	const defines = {};
	const files = fs.readdirSync(tdir).sort();
	const trees = {};
	for (const f of files) trees[f] = parse(lex(fs.readFileSync(path.join(tdir, f), "utf8"), f), f, defines);
	fs.mkdirSync(outdir, { recursive: true });
	const objs = [];
	for (const f of files) {
		if (f.startsWith("_")) continue; // partials: defines only
		const text = run(trees[f], { root, dot: root, defines }, f);
		if (!text.trim()) continue;
		fs.writeFileSync(path.join(outdir, f), text);
		for (const d of YAML.parseAllDocuments(text, { uniqueKeys: true })) {
			if (d.errors.length) die(`${f}: rendered YAML: ${d.errors[0].message}`);
			const o = d.toJS();
			if (o !== null) objs.push(o);
		}
	}
	process.stdout.write(JSON.stringify(objs, null, 1) + "\n");
} catch (e) {
	console.error(`helm-render.mjs: ${e.message}`);
	process.exit(1);
}
