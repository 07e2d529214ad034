// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One way to break the real manifests per rule: the test runs check.js
// with each and expects exactly that rule's name in the output (a rule
// that never fires on a broken manifest proves nothing). apply() changes
// the parsed objects in place and returns the object it broke (or null).
"use strict";

const ds = (docs) => docs.find((d) => d.kind === "DaemonSet" && d.metadata.name === "rdmanetd");
const agent = (docs) => {
	const d = ds(docs);
	return d && d.spec.template.spec.containers.find((c) => c.name === "rdmanetd");
};
const pod = (docs) => docs.find((d) => d.kind === "Pod" &&
	((d.metadata.annotations || {})["k8s.v1.cni.cncf.io/networks"]));
const withAgent = (f) => (docs) => {
	const c = agent(docs);
	if (!c)
		return null;
	f(c, ds(docs).spec.template.spec);
	return ds(docs);
};

module.exports = [
	{ name: "no-node-selector", rule: "node-selector",
	  apply: withAgent((c, s) => { delete s.nodeSelector; }) },
	{ name: "netns-hidden", rule: "netns-visible",
	  apply: withAgent((c) => { c.volumeMounts = c.volumeMounts.filter((m) => m.name !== "netns"); }) },
	{ name: "netns-no-propagation", rule: "netns-visible",
	  apply: withAgent((c) => { delete c.volumeMounts.find((m) => m.name === "netns").mountPropagation; }) },
	{ name: "no-liveness", rule: "probes",
	  apply: withAgent((c) => { delete c.livenessProbe; }) },
	{ name: "image-latest", rule: "image-tag",
	  apply: withAgent((c) => { c.image = "rdmanet/rdmanet:latest"; }) },
	{ name: "apparmor-default", rule: "apparmor",
	  apply: withAgent((c) => { delete c.securityContext.appArmorProfile; }) },
	{ name: "apparmor-disagree", rule: "apparmor",
	  apply: withAgent((c) => { c.securityContext.appArmorProfile = { type: "RuntimeDefault" }; }) },
	{ name: "configfs-must-exist", rule: "hostpath-may-be-missing",
	  apply: withAgent((c, s) => { s.volumes.find((v) => v.name === "configfs").hostPath.type = "Directory"; }) },
	{ name: "bidirectional-unprivileged", rule: "bidirectional-needs-privileged",
	  apply: withAgent((c) => { c.volumeMounts[0].mountPropagation = "Bidirectional"; }) },
	{ name: "hostpath-type-unknown", rule: "schema",
	  apply: withAgent((c, s) => { s.volumes[0].hostPath.type = "Folder"; }) },
	{ name: "hostpath-type-unset", rule: "hostpath-type",
	  apply: withAgent((c, s) => { delete s.volumes.find((v) => v.hostPath).hostPath.type; }) },
	{ name: "capability-typo", rule: "capability-name",
	  apply: withAgent((c) => { c.securityContext.capabilities.add.push("NET_ADMN"); }) },
	{ name: "capability-all-added", rule: "capability-name",
	  apply: withAgent((c) => { c.securityContext.capabilities.add.push("ALL"); }) },
	{ name: "mount-without-volume", rule: "mount-has-volume",
	  apply: withAgent((c) => { c.volumeMounts.push({ name: "nowhere", mountPath: "/x" }); }) },
	{ name: "mount-path-twice", rule: "mount-path-unique",
	  apply: withAgent((c) => { c.volumeMounts.push({ ...c.volumeMounts[1] }); }) },
	{ name: "volume-twice", rule: "volume-name-unique",
	  apply: withAgent((c, s) => { s.volumes.push({ ...s.volumes[0] }); }) },
	{ name: "volume-unused", rule: "volume-used",
	  apply: withAgent((c, s) => { s.volumes.push({ name: "spare", emptyDir: {} }); }) },
	{ name: "configmap-subpath", rule: "configmap-no-subpath",
	  apply: withAgent((c) => {
		const m = c.volumeMounts.find((x) => x.name === "config");
		m.subPath = "config.json";
		m.mountPath = "/etc/rdmanet/config.json";
	  }) },
	{ name: "readonly-sys-hostpath", rule: "readonly-host-tree",
	  apply: withAgent((c, s) => {
		s.volumes.push({ name: "sys", hostPath: { path: "/sys", type: "Directory" } });
		c.volumeMounts.push({ name: "sys", mountPath: "/host/sys", readOnly: true });
	  }) },
	{ name: "privileged", rule: "least-privilege",
	  apply: withAgent((c) => { c.securityContext.privileged = true; }) },
	{ name: "caps-without-drop-all", rule: "least-privilege",
	  apply: withAgent((c) => { c.securityContext.capabilities.drop = []; }) },
	{ name: "selector-mismatch", rule: "selector-matches-template",
	  apply: (docs) => { const d = ds(docs); if (d) d.spec.selector.matchLabels.app = "other"; return d; } },
	{ name: "network-undefined", rule: "network-exists",
	  apply: (docs) => {
		const p = pod(docs);
		if (p)
			p.metadata.annotations["k8s.v1.cni.cncf.io/networks"] += ", nosuchrail@net9";
		return p;
	  } },
	{ name: "propagation-misspelt", rule: "schema",
	  apply: withAgent((c) => { c.volumeMounts[0].mountPropagation = "HostToContainers"; }) },
	{ name: "nad-config-not-json", rule: "schema",
	  apply: (docs) => {
		const n = docs.find((d) => d.kind === "NetworkAttachmentDefinition");
		if (n)
			n.spec.config = "{ \"cniVersion\": \"1.1.0\", ";
		return n;
	  } },
	{ name: "resource-typo", rule: "resource-configured",
	  apply: (docs) => {
		const p = docs.find((d) => d.kind === "Pod" && d.metadata.name === "trainer-8rail");
		if (!p)
			return null;
		const l = p.spec.containers[0].resources.limits;
		delete l["spidernet.io/shared_cx5_gpu8"];
		l["spidernet.io/shared_cx5_gpu9"] = 1;
		return p;
	  } },
	{ name: "resource-name-invalid", rule: "node-config",
	  apply: (docs) => {
		const c = docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === "rdmanet-config" &&
			d.data["config.json"].includes("hca_shared_devices"));
		if (c)
			c.data["config.json"] = c.data["config.json"].replace("hca_shared_devices", "hca shared");
		return c;
	  } },
	{ name: "node-config-garbage", rule: "node-config",
	  apply: (docs) => {
		const c = docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === "rdmanet-config");
		if (c)
			c.data["config.json"] = "{ masters: [ }";
		return c;
	  } },
];
