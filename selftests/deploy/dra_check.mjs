// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// node dra_check.mjs SLICES.json FILE...
//
// The DRA objects deploy/ ships, checked against Kubernetes 1.34's OpenAPI
// definitions (kubernetes-models 5, ESM only, installed beside the 4.x that
// check.js uses as "kubernetes-models-v5") and against what the driver
// publishes (SLICES.json: the ResourceSlices tools/dra_slices builds from a
// fixture, themselves checked here). Every object of a file that holds a
// resource.k8s.io object is checked with the 1.34 definitions (a Pod's
// resourceClaims changed shape since 4.x's). The rules (err lines
// "FILE: RULE: message"):
//   schema            the object against its OpenAPI definition
//   dra-attribute     a DeviceClass selector names an attribute or capacity
//                     of rdma.rdmanet.io that no published device has
//   dra-value         ... compares one with a value no device has
//   dra-class         a claim request names a DeviceClass that deploy/dra
//                     does not define (other drivers' classes: EXTERNAL)
//   dra-match         a constraint matches an attribute no device has
//   dra-capacity      a request asks for a capacity no device has
// Exit 1 if anything was found.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const YAML = require("yaml");
const DRIVER = "rdma.rdmanet.io";
// DeviceClasses other drivers install (NVIDIA's GPU driver)
const EXTERNAL = new Set(["gpu.nvidia.com"]);

const [slicesFile, ...files] = process.argv.slice(2);
let bad = 0;
const report = (file, rule, msg) => {
	console.log(`${file}: ${rule}: ${msg}`);
	bad++;
};

async function validate(file, obj) {
	const [group, version] = obj.apiVersion.includes("/") ? obj.apiVersion.split("/") : ["", obj.apiVersion];
	const path = group ? `${group}/${version}` : version;
	let Model;
	try {
		Model = (await import(`kubernetes-models-v5/${path}/${obj.kind}`))[obj.kind];
	} catch (e) {
		return report(file, "schema", `no OpenAPI definition for ${obj.apiVersion} ${obj.kind}`);
	}
	try {
		new Model(obj).validate();
	} catch (e) {
		for (const m of String(e.message).split(", data"))
			report(file, "schema", `${obj.kind} ${obj.metadata?.name}: ${m.startsWith("data") ? m : "data" + m}`);
	}
}

// what the driver publishes: attribute and capacity names (qualified as
// the scheduler sees them) and each attribute's values
const slices = JSON.parse(fs.readFileSync(slicesFile, "utf8"));
const attrs = new Map(), caps = new Set();
for (const s of slices) {
	await validate(slicesFile, s);
	for (const d of s.spec.devices || []) {
		for (const [k, v] of Object.entries(d.attributes || {})) {
			const q = k.includes("/") ? k : `${DRIVER}/${k}`;
			if (!attrs.has(q))
				attrs.set(q, new Set());
			attrs.get(q).add(String(Object.values(v)[0]));
		}
		for (const k of Object.keys(d.capacity || {}))
			caps.add(k.includes("/") ? k : `${DRIVER}/${k}`);
	}
}

const docs = [];
for (const file of files)
	for (const d of YAML.parseAllDocuments(fs.readFileSync(file, "utf8")).map((x) => x.toJS()))
		if (d)
			docs.push([file, d]);
const classes = new Set(docs.filter(([, d]) => d.kind === "DeviceClass").map(([, d]) => d.metadata.name));
const draFiles = new Set(docs.filter(([, d]) => d.apiVersion.startsWith("resource.k8s.io/")).map(([f]) => f));

const ATTR = /device\.(attributes|capacity)\["([^"]+)"\]\.([A-Za-z0-9_]+)(\s*==\s*"([^"]*)")?/g;
for (const [file, d] of docs) {
	if (!draFiles.has(file))
		continue;
	await validate(file, d);
	if (d.kind === "DeviceClass") {
		for (const sel of d.spec?.selectors || []) {
			for (const m of (sel.cel?.expression || "").matchAll(ATTR)) {
				const [, what, domain, name, , value] = m;
				if (domain !== DRIVER)
					continue;
				const q = `${domain}/${name}`;
				if (what === "capacity" ? !caps.has(q) : !attrs.has(q))
					report(file, "dra-attribute", `DeviceClass ${d.metadata.name}: ${what} ${q} is not published`);
				else if (value !== undefined && what === "attributes" && !attrs.get(q).has(value))
					report(file, "dra-value", `DeviceClass ${d.metadata.name}: no device has ${q} == "${value}" (published: ${[...attrs.get(q)].join(", ")})`);
			}
		}
	}
	const spec = d.kind === "ResourceClaimTemplate" ? d.spec?.spec : d.kind === "ResourceClaim" ? d.spec : null;
	if (!spec)
		continue;
	for (const r of spec.devices?.requests || []) {
		const ex = r.exactly || {};
		if (ex.deviceClassName && !classes.has(ex.deviceClassName) && !EXTERNAL.has(ex.deviceClassName))
			report(file, "dra-class", `request ${r.name}: DeviceClass ${ex.deviceClassName} is defined nowhere`);
		for (const k of Object.keys(ex.capacity?.requests || {}))
			if (!caps.has(k.includes("/") ? k : `${DRIVER}/${k}`))
				report(file, "dra-capacity", `request ${r.name}: capacity ${k} is not published`);
	}
	for (const c of spec.devices?.constraints || [])
		if (c.matchAttribute && !attrs.has(c.matchAttribute.includes("/") ? c.matchAttribute : `${DRIVER}/${c.matchAttribute}`))
			report(file, "dra-match", `constraint on ${(c.requests || []).join(",")}: ${c.matchAttribute} is not published`);
}
process.exit(bad ? 1 : 0);
