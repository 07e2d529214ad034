// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// node kube_pod.js RENDERED.yaml OUT_DIR HOST_ROOT IMAGE CONFIG.json POD_NAME [HOSTPATH:MOUNTPATH]
//
// What podman 4.3's `kube play` cannot take as Kubernetes writes it, turned
// into what it can, and nothing else (selftests/deploy/test_kube_play.sh
// says why for each):
//  - the DaemonSet's pod template becomes a Pod (podman has no DaemonSet);
//  - restartPolicy OnFailure (under Always podman reruns init containers);
//  - host paths the node would own (/opt/cni/bin, /etc/rdmanet,
//    /var/lib/rdmanet, the kubelet dirs, the textfile dir) move under
//    HOST_ROOT, so that the test never writes this machine's own; the
//    kernel's (bpffs, /run/netns, /dev, /sys) stay where they are;
//  - a hostPath this kernel does not have (configfs) is dropped;
//  - the image is IMAGE; the ConfigMap carries CONFIG.json (the test's
//    node: its veth master, its pin dir);
//  - the pod's emptyDir and ConfigMap volumes are named after the pod:
//    podman keeps them as named volumes after the pod is gone (a
//    Kubernetes emptyDir dies with its pod), and the test removes them;
//  - EXTRA_VOLUME: one more read-only mount into the agent (a sysfs fixture);
//  - an env value from the downward API's spec.nodeName (podman refuses the
//    field) is the node's name as kubelet would give it: the hostname,
//    or KUBE_NODE_NAME (environment);
//  - KUBE_SA_DIR, KUBE_SERVICE_HOST, KUBE_SERVICE_PORT (environment): what
//    kubelet gives every container of a pod whose service account token is
//    mounted (automountServiceAccountToken, the default) and podman does
//    not: the token, ca.crt and namespace at
//    /var/run/secrets/kubernetes.io/serviceaccount (here a read-only mount
//    of KUBE_SA_DIR) and KUBERNETES_SERVICE_HOST/_PORT in the environment.
// Writes OUT_DIR/pod.yaml and OUT_DIR/configmap.yaml.
"use strict";
const fs = require("fs");
const YAML = require("yaml");

const [rendered, out, hostRoot, image, configFile, podName, extra] = process.argv.slice(2);
const docs = YAML.parseAllDocuments(fs.readFileSync(rendered, "utf8")).map((d) => d.toJS());
const ds = docs.find((d) => d && ["DaemonSet", "Pod"].includes(d.kind));
const cm = docs.find((d) => d && d.kind === "ConfigMap");
const KERNEL = ["/sys", "/dev", "/run/netns", "/proc"];

const tmpl = ds.kind === "Pod" ? ds : ds.spec.template;
const spec = tmpl.spec;
spec.restartPolicy = ds.kind === "Pod" ? spec.restartPolicy : "OnFailure";
spec.volumes = spec.volumes.filter((v) => {
	if (!v.hostPath)
		return true;
	const p = v.hostPath.path;
	if (KERNEL.some((k) => p === k || p.startsWith(k + "/"))) {
		if (!fs.existsSync(p) && v.hostPath.type !== "DirectoryOrCreate" ||
		    p.startsWith("/sys/") && !fs.existsSync(p)) {
			process.stderr.write(`kube_pod: ${p} does not exist on this kernel: volume ${v.name} dropped\n`);
			for (const c of [...(spec.initContainers || []), ...spec.containers])
				c.volumeMounts = (c.volumeMounts || []).filter((m) => m.name !== v.name);
			return false;
		}
		return true;
	}
	v.hostPath.path = hostRoot + p;
	fs.mkdirSync(v.hostPath.path, { recursive: true });
	return true;
});
for (const c of [...(spec.initContainers || []), ...spec.containers])
	c.image = image;
const renamed = new Map();
for (const v of spec.volumes)
	if (v.emptyDir || v.configMap) {
		renamed.set(v.name, `${podName}-${v.name}`);
		v.name = `${podName}-${v.name}`;
		if (v.configMap)
			v.configMap.name = `${podName}-config`;
	}
for (const c of [...(spec.initContainers || []), ...spec.containers])
	for (const m of c.volumeMounts || [])
		m.name = renamed.get(m.name) || m.name;
if (extra) {
	const [hostPath, mountPath] = extra.split(":");
	spec.volumes.push({ name: "test-extra", hostPath: { path: hostPath, type: "Directory" } });
	spec.containers[0].volumeMounts.push({ name: "test-extra", mountPath, readOnly: true });
}
for (const c of [...(spec.initContainers || []), ...spec.containers])
	for (const e of c.env || [])
		if (e.valueFrom && e.valueFrom.fieldRef && e.valueFrom.fieldRef.fieldPath === "spec.nodeName") {
			delete e.valueFrom;
			e.value = process.env.KUBE_NODE_NAME || require("os").hostname();
		}
if (process.env.KUBE_SA_DIR && spec.automountServiceAccountToken !== false) {
	spec.volumes.push({ name: "test-sa", hostPath: { path: process.env.KUBE_SA_DIR, type: "Directory" } });
	for (const c of [...(spec.initContainers || []), ...spec.containers]) {
		(c.volumeMounts = c.volumeMounts || []).push({ name: "test-sa", readOnly: true,
			mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" });
		(c.env = c.env || []).push(
			{ name: "KUBERNETES_SERVICE_HOST", value: process.env.KUBE_SERVICE_HOST },
			{ name: "KUBERNETES_SERVICE_PORT", value: process.env.KUBE_SERVICE_PORT });
	}
}
const pod = {
	apiVersion: "v1", kind: "Pod",
	metadata: { name: podName, namespace: ds.metadata.namespace,
		    labels: tmpl.metadata.labels, annotations: tmpl.metadata.annotations },
	spec,
};
fs.writeFileSync(`${out}/pod.yaml`, YAML.stringify(pod));
if (cm) {
	cm.metadata.name = `${podName}-config`;
	cm.data["config.json"] = fs.readFileSync(configFile, "utf8");
	fs.writeFileSync(`${out}/configmap.yaml`, YAML.stringify(cm));
}
