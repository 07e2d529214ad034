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
//   dra-config        a DeviceClass's or a claim's config.opaque for
//                     rdma.rdmanet.io whose parameters are not an
//                     rdma.rdmanet.io/v1alpha1 NetworkConfig as the driver
//                     takes it (user/lib/dra/claim_config.c: only its keys,
//                     mode macvlan|ipvlan, ipvlanMode l2|l3|l3s, dscp
//                     0..63, ippools.ipv4/ipv6 of 1..4 pool names), or a
//                     claim's config entry naming a request it does not have
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

// rdmanet's opaque parameters, as user/lib/dra/claim_config.c reads them
function networkConfigErrors(p) {
	const errs = [];
	const keys = ["apiVersion", "kind", "mode", "ipvlanMode", "ippools", "dscp"];
	if (typeof p !== "object" || p === null || Array.isArray(p))
		return ["parameters: not an object"];
	for (const k of Object.keys(p))
		if (!keys.includes(k))
			errs.push(`parameters: unknown key "${k}"`);
	if (p.apiVersion !== "rdma.rdmanet.io/v1alpha1")
		errs.push(`parameters.apiVersion: "${p.apiVersion}", not rdma.rdmanet.io/v1alpha1`);
	if (p.kind !== "NetworkConfig")
		errs.push(`parameters.kind: "${p.kind}", not NetworkConfig`);
	if (p.mode !== undefined && !["macvlan", "ipvlan"].includes(p.mode))
		errs.push(`parameters.mode: "${p.mode}", not macvlan|ipvlan`);
	if (p.ipvlanMode !== undefined && !["l2", "l3", "l3s"].includes(p.ipvlanMode))
		errs.push(`parameters.ipvlanMode: "${p.ipvlanMode}", not l2|l3|l3s`);
	if (p.dscp !== undefined && !(Number.isInteger(p.dscp) && p.dscp >= 0 && p.dscp <= 63))
		errs.push(`parameters.dscp: ${p.dscp}, not an integer 0..63`);
	if (p.ippools !== undefined) {
		const fams = Object.keys(p.ippools || {});
		if (!fams.length)
			errs.push("parameters.ippools: lists no pool");
		for (const f of fams) {
			const l = p.ippools[f];
			if (!["ipv4", "ipv6"].includes(f))
				errs.push(`parameters.ippools: unknown key "${f}"`);
			else if (!Array.isArray(l) || l.length > 4 ||
				 l.some((n) => typeof n !== "string" || !n.length || n.length > 63))
				errs.push(`parameters.ippools.${f}: not a list of 1..4 pool names`);
		}
	}
	return errs;
}

function checkConfig(file, what, config, requests) {
	(config || []).forEach((c, i) => {
		for (const r of c.requests || [])
			if (requests && !requests.includes(r.split("/")[0]))
				report(file, "dra-config", `${what} config[${i}]: request ${r} is not one of the claim's`);
		if (c.opaque?.driver !== DRIVER)
			return;
		for (const m of networkConfigErrors(c.opaque.parameters))
			report(file, "dra-config", `${what} config[${i}].opaque.${m}`);
	});
}

const ATTR = /device\.(attributes|capacity)\["([^"]+)"\]\.([A-Za-z0-9_]+)(\s*==\s*"([^"]*)")?/g;
for (const [file, d] of docs) {
	if (!draFiles.has(file))
		continue;
	// a Multus CRD beside the claims: check.js validates it (schema.js)
	if (d.apiVersion === "k8s.cni.cncf.io/v1" && d.kind === "NetworkAttachmentDefinition")
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
	if (d.kind === "DeviceClass")
		checkConfig(file, `DeviceClass ${d.metadata.name}`, d.spec?.config, null);
	const spec = d.kind === "ResourceClaimTemplate" ? d.spec?.spec : d.kind === "ResourceClaim" ? d.spec : null;
	if (!spec)
		continue;
	checkConfig(file, `${d.kind} ${d.metadata.name}`, spec.devices?.config,
		    (spec.devices?.requests || []).map((r) => r.name));
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
