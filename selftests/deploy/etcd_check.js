// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// node etcd_check.js [--mutate NAME] ETCD.yaml AGENT.yaml: the shipped etcd
// (deploy/etcd rendered by kustomize) is what cluster IPAM leans on, and
// the agent's overlay (rails-8 rendered) points at it. One line per
// problem "RULE: message", exit 1 on any. --list-mutations prints
// "NAME RULE" lines; --mutate breaks the objects one way first (the test
// proves each rule fires).
"use strict";
const fs = require("fs");
const YAML = require("yaml");

const load = (f) => YAML.parseAllDocuments(fs.readFileSync(f, "utf8")).map((d) => d.toJS()).filter(Boolean);
const sts = (docs) => docs.find((d) => d.kind === "StatefulSet");
const etcdContainer = (docs) => sts(docs).spec.template.spec.containers.find((c) => c.name === "etcd");
const agentDs = (docs) => docs.find((d) => d.kind === "DaemonSet" && d.metadata.name === "rdmanetd");
const agentConfig = (docs) => JSON.parse(docs.find((d) => d.kind === "ConfigMap" &&
	d.metadata.name === "rdmanet-config").data["config.json"]);
const matches = (sel, labels) => Object.entries(sel || {}).every(([k, v]) => labels[k] === v) &&
	Object.keys(sel || {}).length > 0;

const TLS_FLAGS = ["--cert-file", "--key-file", "--trusted-ca-file", "--client-cert-auth",
		   "--peer-cert-file", "--peer-key-file", "--peer-trusted-ca-file",
		   "--peer-client-cert-auth"];

function check(etcd, agent, err) {
	const s = sts(etcd);
	if (!s)
		return err("etcd-statefulset", "no StatefulSet in the etcd manifests");
	const ns = s.metadata.namespace;
	const labels = s.spec.template.metadata.labels || {};
	const pod = s.spec.template.spec;
	const c = etcdContainer(etcd);
	const args = c.args || [];
	const flag = (name) => args.find((a) => a === name || a.startsWith(name + "="));
	const value = (name) => (flag(name) || "").split("=").slice(1).join("=");

	if (s.spec.replicas !== 3)
		err("etcd-replicas", `${s.spec.replicas} members (3: one may fail or be drained)`);
	for (const f of TLS_FLAGS)
		if (!flag(f))
			err("etcd-tls", `etcd has no ${f}`);
	for (const f of ["--listen-client-urls", "--advertise-client-urls", "--listen-peer-urls",
			 "--initial-advertise-peer-urls"])
		if (!/^https:\/\//.test(value(f)))
			err("etcd-tls", `${f} is not https: ${value(f)}`);
	const secretVols = new Map((pod.volumes || []).filter((v) => v.secret)
		.map((v) => [v.name, v.secret.secretName]));
	const tlsMount = (c.volumeMounts || []).find((m) => secretVols.has(m.name) &&
		value("--cert-file").startsWith(m.mountPath + "/"));
	if (!tlsMount)
		err("etcd-tls", "the certificate files are not on a Secret volume");

	const pdb = etcd.find((d) => d.kind === "PodDisruptionBudget");
	if (!pdb || pdb.spec.maxUnavailable !== 1 || !matches(pdb.spec.selector.matchLabels, labels))
		err("etcd-pdb", "no PodDisruptionBudget with maxUnavailable 1 over the members");

	const anti = (((pod.affinity || {}).podAntiAffinity || {})
		.requiredDuringSchedulingIgnoredDuringExecution || []);
	if (!anti.some((t) => t.topologyKey === "kubernetes.io/hostname" &&
		       matches((t.labelSelector || {}).matchLabels, labels)))
		err("etcd-anti-affinity", "members are not required on different nodes");

	const req = (c.resources || {}).requests || {};
	if (!req.cpu || !req.memory)
		err("etcd-resources", "etcd requests no cpu or memory (evicted first under pressure)");

	const svc = etcd.find((d) => d.kind === "Service" && d.metadata.name === s.spec.serviceName);
	if (!svc || svc.spec.clusterIP !== "None" || !matches(svc.spec.selector, labels) ||
	    !svc.spec.publishNotReadyAddresses)
		err("etcd-headless", `no headless Service ${s.spec.serviceName} (publishNotReadyAddresses) ` +
		    "selecting the members");
	if (s.spec.podManagementPolicy !== "Parallel")
		err("etcd-headless", "members start one by one: the first never gets a quorum alone");

	// the member names the cluster is formed of and the agents' endpoints
	const members = [...Array(s.spec.replicas).keys()].map((i) => `${s.metadata.name}-${i}`);
	const host = (m) => `${m}.${s.spec.serviceName}.${ns}.svc`;
	const want = members.map((m) => `${m}=https://${host(m)}:2380`).join(",");
	if (value("--initial-cluster") !== want)
		err("etcd-endpoints", `--initial-cluster is ${value("--initial-cluster")}, not ${want}`);
	const cfg = agentConfig(agent).ipam || {};
	const eps = members.map((m) => `https://${host(m)}:2379`);
	if (cfg.store !== "etcd" || JSON.stringify(cfg.endpoints) !== JSON.stringify(eps))
		err("etcd-endpoints", `the agent's ipam.endpoints ${JSON.stringify(cfg.endpoints)} ` +
		    `are not the members ${JSON.stringify(eps)}`);

	// the agent's client certificate: from the client Secret, on a host
	// path the agent sees at the same place (the CNI plugin reads it there)
	const tls = cfg.tls || {};
	if (!tls.ca_file || !tls.cert_file || !tls.key_file)
		return err("etcd-client-cert", "the agent's ipam.tls lacks ca_file, cert_file or key_file");
	const ds = agentDs(agent);
	const spec = ds.spec.template.spec;
	const vols = new Map((spec.volumes || []).map((v) => [v.name, v]));
	const agentC = spec.containers.find((x) => x.name === "rdmanetd");
	for (const f of [tls.ca_file, tls.cert_file, tls.key_file]) {
		const m = (agentC.volumeMounts || []).find((x) => f.startsWith(x.mountPath + "/"));
		const v = m && vols.get(m.name);
		if (!v || !v.hostPath || v.hostPath.path !== m.mountPath)
			err("etcd-client-cert", `${f} is not on a host path mounted at the same path`);
	}
	const copier = (spec.initContainers || []).find((x) => (x.volumeMounts || []).some((m) =>
		(vols.get(m.name) || {}).secret &&
		vols.get(m.name).secret.secretName === "rdmanet-etcd-client"));
	if (!copier)
		err("etcd-client-cert", "no init container copies the rdmanet-etcd-client Secret to the host");
	else if (!/client-key\.pem/.test(JSON.stringify(copier.args || copier.command)))
		err("etcd-client-cert", `init container ${copier.name} does not copy client-key.pem`);
	if (spec.hostNetwork && spec.dnsPolicy !== "ClusterFirstWithHostNet")
		err("etcd-endpoints", "the agent (host network) cannot resolve the members' Service names " +
		    "without dnsPolicy ClusterFirstWithHostNet");
}

const mutations = [
	{ name: "two-members", rule: "etcd-replicas", apply: (e) => { sts(e).spec.replicas = 2; } },
	{ name: "no-client-cert-auth", rule: "etcd-tls",
	  apply: (e) => { const c = etcdContainer(e); c.args = c.args.filter((a) => a !== "--client-cert-auth"); } },
	{ name: "plain-peers", rule: "etcd-tls",
	  apply: (e) => { const c = etcdContainer(e); c.args = c.args.map((a) => a.replace(/^(--listen-peer-urls=)https/, "$1http")); } },
	{ name: "no-pdb", rule: "etcd-pdb",
	  apply: (e) => { e.splice(e.findIndex((d) => d.kind === "PodDisruptionBudget"), 1); } },
	{ name: "pdb-two", rule: "etcd-pdb",
	  apply: (e) => { e.find((d) => d.kind === "PodDisruptionBudget").spec.maxUnavailable = 2; } },
	{ name: "no-anti-affinity", rule: "etcd-anti-affinity",
	  apply: (e) => { delete sts(e).spec.template.spec.affinity; } },
	{ name: "anti-affinity-zone", rule: "etcd-anti-affinity",
	  apply: (e) => { sts(e).spec.template.spec.affinity.podAntiAffinity
		.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey = "topology.kubernetes.io/zone"; } },
	{ name: "no-requests", rule: "etcd-resources",
	  apply: (e) => { delete etcdContainer(e).resources.requests; } },
	{ name: "service-not-headless", rule: "etcd-headless",
	  apply: (e) => { delete e.find((d) => d.kind === "Service" && d.spec.clusterIP === "None").spec.clusterIP; } },
	{ name: "endpoint-typo", rule: "etcd-endpoints",
	  apply: (e, a) => { const cm = a.find((d) => d.kind === "ConfigMap");
		const j = JSON.parse(cm.data["config.json"]); j.ipam.endpoints[1] = j.ipam.endpoints[1].replace("etcd-1", "etcd-3");
		cm.data["config.json"] = JSON.stringify(j); } },
	{ name: "agent-plain-http", rule: "etcd-endpoints",
	  apply: (e, a) => { const cm = a.find((d) => d.kind === "ConfigMap");
		const j = JSON.parse(cm.data["config.json"]); j.ipam.endpoints = j.ipam.endpoints.map((u) => u.replace("https", "http"));
		cm.data["config.json"] = JSON.stringify(j); } },
	{ name: "agent-host-dns", rule: "etcd-endpoints",
	  apply: (e, a) => { delete agentDs(a).spec.template.spec.dnsPolicy; } },
	{ name: "agent-no-client-cert", rule: "etcd-client-cert",
	  apply: (e, a) => { const cm = a.find((d) => d.kind === "ConfigMap");
		const j = JSON.parse(cm.data["config.json"]); delete j.ipam.tls.key_file;
		cm.data["config.json"] = JSON.stringify(j); } },
	{ name: "cert-not-copied", rule: "etcd-client-cert",
	  apply: (e, a) => { const s = agentDs(a).spec.template.spec;
		s.initContainers = s.initContainers.filter((c) => c.name !== "install-etcd-tls"); } },
	{ name: "cert-in-container-only", rule: "etcd-client-cert",
	  apply: (e, a) => { const cm = a.find((d) => d.kind === "ConfigMap");
		const j = JSON.parse(cm.data["config.json"]); j.ipam.tls.ca_file = "/etc/rdmanet/ca.pem";
		cm.data["config.json"] = JSON.stringify(j); } },
];

const args = process.argv.slice(2);
if (args[0] === "--list-mutations") {
	for (const m of mutations)
		console.log(`${m.name} ${m.rule}`);
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
const etcd = load(args[0]), agent = load(args[1]);
if (mutate)
	mutate.apply(etcd, agent);
let problems = 0;
check(etcd, agent, (rule, msg) => {
	console.log(`${rule}: ${msg}`);
	problems++;
});
process.exit(problems ? 1 : 0);
