// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// node check.js [--mutate NAME] FILE...: validates every object of every
// file (the files are one set: a pod's networks may be defined in another
// file), one line per problem "FILE: Kind/name: RULE: message", exit 1 on
// any. --mutate applies one of mutations.js to the set first (the test
// proves each rule fires). --list-mutations prints "NAME RULE" lines.
// --extract-node-configs DIR FILE...: writes the config.json of each
// rdmanet-config ConfigMap to DIR/<file>.json (for rdmanetd --check-config).
"use strict";
const fs = require("fs");
const YAML = require("yaml");
const validateSchema = require("./schema");
const checkRules = require("./rules");
const mutations = require("./mutations");

const args = process.argv.slice(2);
if (args[0] === "--list-mutations") {
	for (const m of mutations)
		console.log(`${m.name} ${m.rule}`);
	process.exit(0);
}
if (args[0] === "--extract-node-configs") {
	const dir = args[1];
	for (const file of args.slice(2))
		for (const d of YAML.parseAllDocuments(fs.readFileSync(file, "utf8"))) {
			const o = d.toJS();
			if (o && o.kind === "ConfigMap" && o.metadata.name === "rdmanet-config") {
				const out = `${dir}/${require("path").basename(file, ".yaml")}.json`;
				fs.writeFileSync(out, o.data["config.json"]);
				console.log(out);
			}
		}
	process.exit(0);
}
let mutate = null;
if (args[0] === "--mutate") {
	mutate = mutations.find((m) => m.name === args[1]);
	if (!mutate) {
		console.error(`no mutation ${args[1]}`);
		process.exit(2);
	}
	args.splice(0, 2);
}

const docs = [];
const origin = new Map();
let problems = 0;
for (const file of args) {
	for (const d of YAML.parseAllDocuments(fs.readFileSync(file, "utf8"))) {
		if (d.errors.length) {
			console.log(`${file}: yaml: ${d.errors[0].message}`);
			problems++;
			continue;
		}
		const obj = d.toJS();
		if (obj === null)
			continue;
		docs.push(obj);
		origin.set(obj, file);
	}
}
if (mutate) {
	const hit = mutate.apply(docs);
	if (!hit) {
		console.error(`mutation ${mutate.name} found nothing to change`);
		process.exit(2);
	}
	origin.set(hit, origin.get(hit) || "mutated");
}
const where = (d) => `${origin.get(d) || "?"}: ${d.kind}/${(d.metadata || {}).name}`;
for (const d of docs)
	validateSchema(d, (rule, msg) => {
		console.log(`${where(d)}: ${rule}: ${msg}`);
		problems++;
	});
checkRules(docs, (d, rule, msg) => {
	console.log(`${where(d)}: ${rule}: ${msg}`);
	problems++;
});
console.error(`${docs.length} objects in ${args.length} files, ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
