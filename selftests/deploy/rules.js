// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What the OpenAPI schema cannot say and the API server (or the node)
// still rejects, plus rdmanet's own least-privilege policy. Each rule has
// a name; selftests/deploy/mutations.js breaks the real manifests once per
// rule to prove it fires.
"use strict";
const CAPS = require("./caps");

const HOSTPATH_TYPES = new Set(["DirectoryOrCreate", "Directory", "FileOrCreate", "File",
	"Socket", "CharDevice", "BlockDevice"]);
// paths with submounts: a read-only bind of them is recursive but the
// submounts keep their own (writable) flags
const HOST_TREES = new Set(["/", "/sys", "/proc", "/dev"]);

function podSpecOf(obj) {
	if (obj.kind === "Pod")
		return obj.spec;
	const t = obj.spec && obj.spec.template;
	return ["DaemonSet", "Deployment", "StatefulSet", "ReplicaSet", "Job"].includes(obj.kind) &&
		t ? t.spec : null;
}

function containersOf(spec) {
	return [...(spec.initContainers || []), ...(spec.containers || [])];
}

function checkCaps(c, err) {
	const sc = c.securityContext || {};
	const caps = sc.capabilities || {};
	for (const list of ["add", "drop"])
		for (const name of caps[list] || []) {
			const bare = String(name).replace(/^CAP_/, "");
			if (!CAPS.has(bare) && !(bare === "ALL" && list === "drop"))
				err("capability-name", `container ${c.name}: capabilities.${list} "${name}" ` +
				    "is not a Linux capability");
		}
	if ((caps.add || []).length && !(caps.drop || []).includes("ALL"))
		err("least-privilege", `container ${c.name} adds capabilities without dropping ALL`);
	if (sc.privileged)
		err("least-privilege", `container ${c.name} is privileged`);
	if (sc.allowPrivilegeEscalation !== false && (caps.add || []).length)
		err("least-privilege", `container ${c.name} adds capabilities but does not set ` +
		    "allowPrivilegeEscalation: false");
}

function checkMounts(spec, c, volumes, err) {
	const paths = new Set();
	const privileged = !!(c.securityContext && c.securityContext.privileged);

	for (const m of c.volumeMounts || []) {
		const v = volumes.get(m.name);
		if (!v)
			err("mount-has-volume", `container ${c.name}: volumeMount ${m.name} names no volume`);
		if (paths.has(m.mountPath))
			err("mount-path-unique", `container ${c.name}: ${m.mountPath} mounted twice`);
		paths.add(m.mountPath);
		// the API server: "Bidirectional mount propagation is available only
		// to privileged containers"
		if (m.mountPropagation === "Bidirectional" && !privileged)
			err("bidirectional-needs-privileged", `container ${c.name}: ${m.mountPath} ` +
			    "has Bidirectional propagation but the container is not privileged");
		if (v && v.configMap && m.subPath)
			err("configmap-no-subpath", `container ${c.name}: ConfigMap ${m.name} mounted ` +
			    "with subPath is never updated (the agent follows its ConfigMap)");
		if (v && v.hostPath && m.readOnly && HOST_TREES.has(v.hostPath.path) &&
		    m.recursiveReadOnly !== "Enabled")
			err("readonly-host-tree", `container ${c.name}: hostPath ${v.hostPath.path} ` +
			    "read-only is not recursive: its submounts stay writable");
	}
}

function checkVolumes(spec, err) {
	const volumes = new Map();
	for (const v of spec.volumes || []) {
		if (volumes.has(v.name))
			err("volume-name-unique", `volume ${v.name} declared twice`);
		volumes.set(v.name, v);
		if (!v.hostPath)
			continue;
		// the schema has the enum; an unset type means no check at all, and a
		// missing path is then created by the runtime (or fails later, unclearly)
		if (!HOSTPATH_TYPES.has(v.hostPath.type))
			err("hostpath-type", `volume ${v.name}: hostPath ${v.hostPath.path} needs one of ` +
			    `the checked types (${[...HOSTPATH_TYPES].join(", ")}), has ` +
			    `"${v.hostPath.type || ""}"`);
		if (!String(v.hostPath.path).startsWith("/"))
			err("hostpath-type", `volume ${v.name}: hostPath ${v.hostPath.path} is not absolute`);
	}
	const used = new Set(containersOf(spec).flatMap((c) => (c.volumeMounts || []).map((m) => m.name)));
	for (const name of volumes.keys())
		if (!used.has(name))
			err("volume-used", `volume ${name} is mounted by no container`);
	return volumes;
}

function checkSelector(obj, err) {
	if (obj.kind === "Pod" || !obj.spec || !obj.spec.selector || !obj.spec.template)
		return;
	const want = obj.spec.selector.matchLabels || {};
	const have = (obj.spec.template.metadata || {}).labels || {};
	for (const [k, v] of Object.entries(want))
		if (have[k] !== v)
			err("selector-matches-template", `selector ${k}=${v} does not match the template's labels`);
}

// Multus' networks annotation must name NetworkAttachmentDefinitions that
// the same set of manifests defines (deploy/ ships them together)
function checkNetworks(obj, nads, err) {
	const ann = ((obj.metadata || {}).annotations || {})["k8s.v1.cni.cncf.io/networks"];
	if (!ann)
		return;
	const ns = obj.metadata.namespace || "default";
	for (const ref of ann.split(",").map((s) => s.trim()).filter(Boolean)) {
		const name = ref.split("@")[0];
		const full = name.includes("/") ? name : `${ns}/${name}`;
		if (!nads.has(full))
			err("network-exists", `networks annotation names ${full}, not defined`);
	}
}

// The node config in an rdmanet-config ConfigMap: JSON, and its
// device_plugin resources named as kubelet accepts them (prefix a DNS
// subdomain, name a qualified-name part). Returns the "prefix/name"s.
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QNAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
function checkNodeConfig(d, err) {
	const out = [];
	if (d.kind !== "ConfigMap" || d.metadata.name !== "rdmanet-config")
		return out;
	let cfg;
	try {
		cfg = JSON.parse((d.data || {})["config.json"]);
	} catch (e) {
		err("node-config", `config.json is not JSON: ${e.message}`);
		return out;
	}
	const list = (cfg.device_plugin && cfg.device_plugin.configList) || [];
	for (const r of list) {
		const prefix = r.resourcePrefix || "rdma";
		const name = r.resourceName;
		if (!DNS_SUBDOMAIN.test(prefix) || typeof name !== "string" || !QNAME.test(name) ||
		    name.length > 63)
			err("node-config", `device_plugin resource "${prefix}/${name}" is not a name ` +
			    "kubelet accepts");
		out.push(`${prefix}/${name}`);
	}
	return out;
}

// A container's extended resources under a prefix the node configs serve
// must be resources they configure (a typo leaves the pod Pending forever)
function checkResources(spec, served, err) {
	const prefixes = new Set([...served].map((r) => r.split("/")[0]));
	for (const c of containersOf(spec))
		for (const kind of ["limits", "requests"])
			for (const r of Object.keys((c.resources || {})[kind] || {}))
				if (prefixes.has(r.split("/")[0]) && !served.has(r))
					err("resource-configured", `container ${c.name}: ${kind} ${r} is ` +
					    "no device_plugin resource of the node configs");
}

// Paths every Linux node has, whatever it runs: the only ones a hostPath
// may require to exist (type Directory) without keeping the agent off a
// node that lacks the rest (configfs before rdma_cm, kubelet dirs, netns)
const ALWAYS_THERE = new Set(["/sys/fs/bpf", "/sys/devices", "/sys/bus/pci"]);

// What the rdmanet agent needs to run on a real node, as the issues that
// found each gap measured it (the node it cannot see, the hung agent...)
function checkAgent(d, spec, err) {
	if (d.kind !== "DaemonSet")
		return;
	const ns = spec.nodeSelector || {};
	const aff = (spec.affinity || {}).nodeAffinity;
	if (!Object.keys(ns).length && !aff)
		err("node-selector", "the DaemonSet selects no nodes: it would run (and fail) on every node");
	for (const v of spec.volumes || [])
		if (v.hostPath && ["Directory", "File", "Socket", "CharDevice", "BlockDevice"]
		    .includes(v.hostPath.type) && !ALWAYS_THERE.has(v.hostPath.path))
			err("hostpath-may-be-missing", `volume ${v.name}: hostPath ${v.hostPath.path} must ` +
			    `exist (${v.hostPath.type}): a node without it never starts the pod`);
	const byPath = new Map((spec.volumes || []).filter((v) => v.hostPath)
		.map((v) => [v.name, v.hostPath.path]));
	const ann = (d.spec.template.metadata || {}).annotations || {};
	for (const c of spec.containers || []) {
		if (!c.livenessProbe || !c.readinessProbe)
			err("probes", `container ${c.name}: no liveness or readiness probe (a hung agent stays)`);
		const mounts = c.volumeMounts || [];
		const netns = mounts.find((m) => ["/run/netns", "/var/run/netns"].includes(byPath.get(m.name)));
		if (!spec.hostPID && (!netns || netns.mountPropagation !== "HostToContainer"))
			err("netns-visible", `container ${c.name}: the pods' netns (/run/netns, ` +
			    "HostToContainer) are not visible and hostPID is off");
		const prof = ((c.securityContext || {}).appArmorProfile || {}).type;
		const old = ann[`container.apparmor.security.beta.kubernetes.io/${c.name}`];
		if (!prof || !old)
			err("apparmor", `container ${c.name}: no AppArmor setting (appArmorProfile and the ` +
			    "annotation for Kubernetes < 1.30): the runtime's default denies its sysfs writes");
		else if ((prof === "Unconfined") !== (old === "unconfined"))
			err("apparmor", `container ${c.name}: appArmorProfile ${prof} and the annotation ` +
			    `${old} disagree (the API server rejects the pod)`);
	}
	for (const c of containersOf(spec))
		if (/:latest$/.test(c.image) || !/:[^/]+$/.test(c.image))
			err("image-tag", `container ${c.name}: image ${c.image} names no version`);
}

// docs: every object of a set of manifests; err(doc, rule, message)
module.exports = function checkRules(docs, err) {
	const nads = new Set(docs.filter((d) => d && d.kind === "NetworkAttachmentDefinition")
		.map((d) => `${d.metadata.namespace || "default"}/${d.metadata.name}`));
	const served = new Set();
	for (const d of docs)
		if (d)
			for (const r of checkNodeConfig(d, (rule, msg) => err(d, rule, msg)))
				served.add(r);
	for (const d of docs) {
		if (!d)
			continue;
		const e = (rule, msg) => err(d, rule, msg);
		checkSelector(d, e);
		checkNetworks(d, nads, e);
		const spec = podSpecOf(d);
		if (!spec)
			continue;
		checkNetworks(d.spec.template || {}, nads, e);
		checkResources(spec, served, e);
		const volumes = checkVolumes(spec, e);
		// a StatefulSet's claim templates are volumes of its pods too
		for (const t of (d.spec.volumeClaimTemplates || []))
			volumes.set(t.metadata.name, { persistentVolumeClaim: { claimName: t.metadata.name } });
		// rdmanet's own components get the least-privilege policy; example
		// workloads (a trainer with IPC_LOCK) only the generic rules
		const ours = /^rdmanet-/.test((d.metadata || {}).namespace || "");
		if (ours && d.metadata.name === "rdmanetd")
			checkAgent(d, spec, e);
		for (const c of containersOf(spec)) {
			checkCaps(c, ours ? e : (rule, msg) => rule !== "least-privilege" && e(rule, msg));
			checkMounts(spec, c, volumes, e);
		}
	}
};
