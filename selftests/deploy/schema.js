// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Schema validation: each object against the Kubernetes OpenAPI definitions
// kubernetes-models was generated from (ajv underneath). Multus'
// NetworkAttachmentDefinition is a CRD kubernetes-models does not carry:
// its metadata is checked as an ObjectMeta and its spec.config as the CNI
// JSON it must be.
"use strict";
const { ObjectMeta } = require("@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta");

function modelFor(apiVersion, kind) {
	const path = apiVersion.includes("/") ? apiVersion : `v1`;
	try {
		return require(`kubernetes-models/${path}/${kind}`)[kind];
	} catch (e) {
		return null;
	}
}

function checkNad(obj, err) {
	try {
		new ObjectMeta(obj.metadata || {}).validate();
	} catch (e) {
		err("schema", `metadata: ${e.message}`);
	}
	const cfg = obj.spec && obj.spec.config;
	if (typeof cfg !== "string")
		return err("schema", "spec.config must be a string (the CNI config JSON)");
	let j;
	try {
		j = JSON.parse(cfg);
	} catch (e) {
		return err("schema", `spec.config is not JSON: ${e.message}`);
	}
	if (!j.cniVersion || !j.name)
		err("schema", "spec.config needs cniVersion and name");
	const plugins = j.plugins || (j.type ? [j] : []);
	if (!plugins.length || plugins.some((p) => typeof p.type !== "string"))
		err("schema", "spec.config needs a type, or plugins[] each with a type");
}

// err(rule, message) for every problem found
module.exports = function validateSchema(obj, err) {
	if (!obj || typeof obj.apiVersion !== "string" || typeof obj.kind !== "string")
		return err("schema", "apiVersion and kind are required");
	if (obj.apiVersion === "k8s.cni.cncf.io/v1" && obj.kind === "NetworkAttachmentDefinition")
		return checkNad(obj, err);
	// kubernetes-models 4.x predates resource.k8s.io/v1: dra_check.mjs
	// checks those with 5.x (ESM only, which this CommonJS cannot load)
	if (obj.apiVersion.startsWith("resource.k8s.io/"))
		return;
	const Model = modelFor(obj.apiVersion, obj.kind);
	if (!Model)
		return err("schema", `no OpenAPI definition for ${obj.apiVersion} ${obj.kind}`);
	try {
		new Model(obj).validate();
	} catch (e) {
		for (const m of String(e.message).split(", data"))
			err("schema", m.startsWith("data") ? m : "data" + m);
	}
};
