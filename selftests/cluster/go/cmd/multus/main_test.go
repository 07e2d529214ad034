package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/containernetworking/cni/pkg/skel"
	cni100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/plugins/pkg/testutils"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
)

func TestParsePodNetworkAnnotation(t *testing.T) {
	tests := []struct {
		name    string
		annot   string
		want    []networkSelectionElement
		wantErr string
	}{
		{name: "one name", annot: "rail1",
			want: []networkSelectionElement{{Name: "rail1", Namespace: "pods"}}},
		{name: "comma list with ns and ifnames", annot: "rail1@net1, other/rail2@r2 ,rail3",
			want: []networkSelectionElement{
				{Name: "rail1", Namespace: "pods", InterfaceRequest: "net1"},
				{Name: "rail2", Namespace: "other", InterfaceRequest: "r2"},
				{Name: "rail3", Namespace: "pods"},
			}},
		{name: "8 rails", annot: "gpu1-rail@net1, gpu2-rail@net2",
			want: []networkSelectionElement{
				{Name: "gpu1-rail", Namespace: "pods", InterfaceRequest: "net1"},
				{Name: "gpu2-rail", Namespace: "pods", InterfaceRequest: "net2"},
			}},
		{name: "upper case refused", annot: "Rail1", wantErr: "did not match comma-delimited format"},
		{name: "two slashes", annot: "a/b/c", wantErr: "failed at '/'"},
		{name: "two ats", annot: "a@b@c", wantErr: "failed at '@'"},
		{name: "ifname too long", annot: "a@abcdefghijklmnop", wantErr: "must be less than 15 chars"},
		{name: "json list", annot: `[{"name":"rail1","interface":"r1","mac":"02:00:00:00:00:01","ips":["10.1.1.2/24"],` +
			`"deviceID":"0000:3b:00.2","cni-args":{"a":"b"}},{"name":"rail2","namespace":"other","interfaceRequest":"old"}]`,
			want: []networkSelectionElement{
				{Name: "rail1", Namespace: "pods", InterfaceRequest: "r1", MacRequest: "02:00:00:00:00:01",
					IPRequest: []string{"10.1.1.2/24"}, DeviceID: "0000:3b:00.2", CNIArgs: &map[string]interface{}{"a": "b"}},
				{Name: "rail2", Namespace: "other", InterfaceRequest: "old", DeprecatedInterfaceRequest: "old"},
			}},
		{name: "json default-route and guid", annot: `[{"name":"r","default-route":["10.0.0.1"],"infiniband-guid":"00:01:02:03:04:05:06:07"}]`,
			want: []networkSelectionElement{{Name: "r", Namespace: "pods", InfinibandGUIDRequest: "00:01:02:03:04:05:06:07",
				GatewayRequest: &[]net.IP{net.ParseIP("10.0.0.1")}}}},
		{name: "json bad mac", annot: `[{"name":"r","mac":"zz"}]`, wantErr: "failed to mac"},
		{name: "json bad ip", annot: `[{"name":"r","ips":["10.1.1.300"]}]`, wantErr: "failed to parse IP address"},
		{name: "json bad cidr", annot: `[{"name":"r","ips":["10.1.1.3/40"]}]`, wantErr: "failed to parse CIDR"},
		{name: "json broken", annot: `[{"name":`, wantErr: "failed to parse pod Network Attachment Selection Annotation JSON"},
		{name: "empty", annot: "", wantErr: "does not have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePodNetworkAnnotation(tt.annot, "pods")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d elements, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if !reflect.DeepEqual(*got[i], tt.want[i]) {
					t.Errorf("element %d: got %+v, want %+v", i, *got[i], tt.want[i])
				}
			}
		})
	}
}

func TestLoadDelegateDeviceID(t *testing.T) {
	tests := []struct {
		name     string
		conf     string
		sel      *networkSelectionElement
		deviceID string
		check    func(t *testing.T, d *delegateNetConf, raw map[string]interface{})
	}{
		{name: "conf gets deviceID and pciBusID at the top",
			conf: `{"cniVersion":"1.0.0","name":"rail1","type":"rdmanet","mode":"sriov"}`, deviceID: "0000:3b:00.2",
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				if d.ConfListPlugin || raw["deviceID"] != "0000:3b:00.2" || raw["pciBusID"] != "0000:3b:00.2" || raw["mode"] != "sriov" {
					t.Errorf("got %v", raw)
				}
				if d.DeviceID != "0000:3b:00.2" || d.ResourceName != "rdma/vf" {
					t.Errorf("housekeeping: %q %q", d.DeviceID, d.ResourceName)
				}
			}},
		{name: "conflist: every plugin gets them, the list not",
			conf:     `{"cniVersion":"1.1.0","name":"rail1","plugins":[{"type":"rdmanet"},{"type":"tuning","sysctl":{"a":"1"}}]}`,
			deviceID: "0000:3b:00.3",
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				if !d.ConfListPlugin || d.Name != "rail1" {
					t.Errorf("conflist %v name %q", d.ConfListPlugin, d.Name)
				}
				if _, ok := raw["deviceID"]; ok {
					t.Errorf("deviceID at the list level: %v", raw)
				}
				for i, p := range raw["plugins"].([]interface{}) {
					pm := p.(map[string]interface{})
					if pm["deviceID"] != "0000:3b:00.3" || pm["pciBusID"] != "0000:3b:00.3" {
						t.Errorf("plugin %d: %v", i, pm)
					}
				}
			}},
		{name: "no deviceID: bytes as given",
			conf: `{"cniVersion":"1.0.0","name":"n","type":"macvlan","zzz":1,"aaa":2}`,
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				if string(d.Bytes) != `{"cniVersion":"1.0.0","name":"n","type":"macvlan","zzz":1,"aaa":2}` {
					t.Errorf("bytes changed: %s", d.Bytes)
				}
			}},
		{name: "selection: name, cni-args merged into args.cni, requests",
			conf: `{"cniVersion":"1.0.0","name":"n","type":"rdmanet","args":{"cni":{"keep":"1"}}}`,
			sel: &networkSelectionElement{Name: "rail1", Namespace: "team", InterfaceRequest: "r1", MacRequest: "02:00:00:00:00:09",
				IPRequest: []string{"10.0.0.9/24"}, DeviceID: "0000:3b:00.7", CNIArgs: &map[string]interface{}{"x": "y"}},
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				if d.Name != "team/rail1" || d.IfnameRequest != "r1" || d.MacRequest != "02:00:00:00:00:09" ||
					!reflect.DeepEqual(d.IPRequest, []string{"10.0.0.9/24"}) || d.DeviceID != "0000:3b:00.7" {
					t.Errorf("delegate %+v", d)
				}
				cni := raw["args"].(map[string]interface{})["cni"].(map[string]interface{})
				if cni["keep"] != "1" || cni["x"] != "y" {
					t.Errorf("args.cni %v", cni)
				}
				if _, ok := raw["deviceID"]; ok {
					t.Errorf("a selection's deviceID goes to runtimeConfig only: %v", raw)
				}
			}},
		{name: "resource deviceID wins over the selection's",
			conf: `{"cniVersion":"1.0.0","name":"n","type":"rdmanet"}`, deviceID: "0000:3b:00.2",
			sel: &networkSelectionElement{Name: "n", Namespace: "d", DeviceID: "0000:3b:00.7"},
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				if d.DeviceID != "0000:3b:00.2" {
					t.Errorf("deviceID %q", d.DeviceID)
				}
			}},
		{name: "conflist cni-args into every plugin",
			conf: `{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"a"},{"type":"b","args":{"other":1}}]}`,
			sel:  &networkSelectionElement{Name: "n", Namespace: "d", CNIArgs: &map[string]interface{}{"k": "v"}},
			check: func(t *testing.T, d *delegateNetConf, raw map[string]interface{}) {
				for i, p := range raw["plugins"].([]interface{}) {
					args := p.(map[string]interface{})["args"].(map[string]interface{})
					if args["cni"].(map[string]interface{})["k"] != "v" {
						t.Errorf("plugin %d args %v", i, args)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := loadDelegateNetConf([]byte(tt.conf), tt.sel, tt.deviceID, "rdma/vf")
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]interface{}
			if err := json.Unmarshal(d.Bytes, &raw); err != nil {
				t.Fatal(err)
			}
			tt.check(t, d, raw)
		})
	}
}

func TestLoadDelegateErrors(t *testing.T) {
	for conf, want := range map[string]string{
		`{"name":"x"}`:                          "must have the 'type' or 'plugin' field",
		`{"name":"x","plugins":[{"a":1}]}`:      "must have the 'type' field",
		`{"name":"x","type":"a"`:                "error unmarshalling delegate config",
		`{"name":"x","plugins":[{"type":"a"}]}`: "",
	} {
		_, err := loadDelegateNetConf([]byte(conf), nil, "", "")
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: error %v, want %q", conf, err, want)
		}
	}
}

func TestGetIfname(t *testing.T) {
	tests := []struct {
		d    delegateNetConf
		idx  int
		want string
	}{
		{delegateNetConf{MasterPlugin: true}, 0, "eth0"},
		{delegateNetConf{}, 1, "net1"},
		{delegateNetConf{}, 2, "net2"},
		{delegateNetConf{IfnameRequest: "r3"}, 3, "r3"},
		{delegateNetConf{MasterPlugin: true, IfnameRequest: "e9"}, 0, "e9"},
	}
	for _, tt := range tests {
		if got := getIfname(&tt.d, "eth0", tt.idx); got != tt.want {
			t.Errorf("getIfname(%+v, %d) = %q, want %q", tt.d, tt.idx, got, tt.want)
		}
	}
}

func TestNextDeviceID(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "d"}}
	m, err := podResourcesMap(pod, []*podresourcesapi.PodResources{
		{Name: "other", Namespace: "d", Containers: []*podresourcesapi.ContainerResources{{
			Devices: []*podresourcesapi.ContainerDevices{{ResourceName: "rdma/vf", DeviceIds: []string{"x"}}}}}},
		{Name: "p", Namespace: "d", Containers: []*podresourcesapi.ContainerResources{
			{Devices: []*podresourcesapi.ContainerDevices{{ResourceName: "rdma/vf", DeviceIds: []string{"0000:3b:00.4", "0000:3b:00.2"}}}},
			{Devices: []*podresourcesapi.ContainerDevices{
				{ResourceName: "rdma/vf", DeviceIds: []string{"0000:3b:00.3"}},
				{ResourceName: "rdma/shared", DeviceIds: []string{"hca0"}}}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range []string{"rdma/vf", "rdma/shared", "rdma/vf", "rdma/vf", "rdma/vf", "nope"} {
		got = append(got, nextDeviceID(m, r))
	}
	want := []string{"0000:3b:00.2", "hca0", "0000:3b:00.3", "0000:3b:00.4", "", ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheckpointResourceMap(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cp")
	cp := `{"Data":{"PodDeviceEntries":[
	  {"PodUID":"u1","ContainerName":"a","ResourceName":"rdma/vf","DeviceIDs":{"0":["0000:3b:00.5"],"1":["0000:3b:00.1"]},"AllocResp":""},
	  {"PodUID":"u2","ContainerName":"a","ResourceName":"rdma/vf","DeviceIDs":{"0":["zz"]},"AllocResp":""}],
	  "RegisteredDevices":{}},"Checksum":1}`
	if err := os.WriteFile(f, []byte(cp), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := checkpointResourceMap(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u1"}}, f)
	if err != nil {
		t.Fatal(err)
	}
	if got := m["rdma/vf"].DeviceIDs; !reflect.DeepEqual(got, []string{"0000:3b:00.1", "0000:3b:00.5"}) {
		t.Errorf("got %v", got)
	}
}

func TestCreateRuntimeConf(t *testing.T) {
	args := &skel.CmdArgs{ContainerID: "cid", Netns: "/run/netns/x",
		Args: "IgnoreUnknown=1;K8S_POD_NAMESPACE=d;K8S_POD_NAME=p;K8S_POD_INFRA_CONTAINER_ID=cid;K8S_POD_UID=u;FOO=bar"}
	k, err := getK8sArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	d := &delegateNetConf{Name: "d/rail1", MacRequest: "02:00:00:00:00:01", IPRequest: []string{"10.0.0.2/24"}, DeviceID: "0000:3b:00.2"}
	rt, devInfo := createRuntimeConf(args, k, "net1", &runtimeConfig{PortMaps: []*portMapEntry{{HostPort: 1, ContainerPort: 2}}}, d)
	wantArgs := [][2]string{
		{"IgnoreUnknown", "true"}, {"K8S_POD_NAMESPACE", "d"}, {"K8S_POD_NAME", "p"},
		{"K8S_POD_INFRA_CONTAINER_ID", "cid"}, {"K8S_POD_UID", "u"},
		{"IgnoreUnknown", "1"}, {"K8S_POD_NAMESPACE", "d"}, {"K8S_POD_NAME", "p"},
		{"K8S_POD_INFRA_CONTAINER_ID", "cid"}, {"K8S_POD_UID", "u"}, {"FOO", "bar"},
	}
	if !reflect.DeepEqual(rt.Args, wantArgs) {
		t.Errorf("args %v", rt.Args)
	}
	if rt.IfName != "net1" || rt.ContainerID != "cid" || rt.NetNS != "/run/netns/x" {
		t.Errorf("rt %+v", rt)
	}
	wantDevInfo := "/var/run/k8s.cni.cncf.io/devinfo/cni/d-rail1-cid_net1"
	if devInfo != wantDevInfo || rt.CapabilityArgs["CNIDeviceInfoFile"] != wantDevInfo {
		t.Errorf("devinfo %q / %v", devInfo, rt.CapabilityArgs["CNIDeviceInfoFile"])
	}
	if rt.CapabilityArgs["deviceID"] != "0000:3b:00.2" || rt.CapabilityArgs["mac"] != "02:00:00:00:00:01" ||
		!reflect.DeepEqual(rt.CapabilityArgs["ips"], []string{"10.0.0.2/24"}) || rt.CapabilityArgs["portMappings"] == nil {
		t.Errorf("caps %v", rt.CapabilityArgs)
	}

	// the cluster network gets the node conf's runtimeConfig only
	d.MasterPlugin = true
	rt, devInfo = createRuntimeConf(args, k, "eth0", nil, d)
	if devInfo != "" || len(rt.CapabilityArgs) != 0 {
		t.Errorf("master: %q %v", devInfo, rt.CapabilityArgs)
	}
}

func TestCacheRoundTrip(t *testing.T) {
	d1, _ := loadDelegateNetConf([]byte(`{"cniVersion":"1.0.0","name":"podnet","plugins":[{"type":"bridge"}]}`), nil, "", "")
	d1.MasterPlugin = true
	d2, _ := loadDelegateNetConf([]byte(`{"cniVersion":"1.0.0","name":"n","type":"rdmanet"}`),
		&networkSelectionElement{Name: "rail1", Namespace: "d", InterfaceRequest: "r1", MacRequest: "02:00:00:00:00:01"}, "0000:3b:00.2", "rdma/vf")
	dir := t.TempDir()
	if err := saveDelegates("cid", dir, []*delegateNetConf{d1, d2}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cid"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := loadCachedDelegates(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || !ds[0].MasterPlugin || !ds[0].ConfListPlugin || ds[1].ConfListPlugin || ds[1].MasterPlugin {
		t.Fatalf("flags: %+v %+v", ds[0], ds[1])
	}
	if ds[1].Name != "d/rail1" || ds[1].IfnameRequest != "r1" || ds[1].DeviceID != "0000:3b:00.2" ||
		ds[1].MacRequest != "02:00:00:00:00:01" || string(ds[1].Bytes) != string(d2.Bytes) || string(ds[0].Bytes) != string(d1.Bytes) {
		t.Errorf("delegate 1: %+v", ds[1])
	}
	// upstream's field names
	var raw []map[string]interface{}
	_ = json.Unmarshal(b, &raw)
	for _, k := range []string{"Conf", "ConfList", "Name", "Bytes", "ifnameRequest", "macRequest", "deviceID", "resourceName", "IsFilterV4Gateway"} {
		if _, ok := raw[1][k]; !ok {
			t.Errorf("cache entry lacks %q: %v", k, raw[1])
		}
	}
}

func TestClusterNetworkFromConflistFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "10-podnet.conflist")
	if err := os.WriteFile(path, []byte(`{"cniVersion":"1.0.0","name":"podnet","foo":"bar","plugins":[{"type":"bridge","bridge":"cni0"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// a subdirectory chain plugin
	if err := os.MkdirAll(filepath.Join(dir, "podnet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "podnet", "50-tuning.conf"), []byte(`{"type":"tuning","mtu":1400}`), 0o600); err != nil {
		t.Fatal(err)
	}
	n := &netConf{ClusterNetwork: path}
	if _, err := getDefaultNetworks(nil, n, &kubeClient{}, nil); err != nil {
		t.Fatal(err)
	}
	d := n.delegates[0]
	if !d.MasterPlugin || !d.ConfListPlugin || d.Name != "podnet" || len(d.ConfList.Plugins) != 2 {
		t.Fatalf("delegate %+v", d)
	}
	var raw map[string]interface{}
	_ = json.Unmarshal(d.Bytes, &raw)
	plugins := raw["plugins"].([]interface{})
	if raw["foo"] != "bar" || len(plugins) != 2 || plugins[1].(map[string]interface{})["mtu"] != float64(1400) {
		t.Errorf("bytes %s", d.Bytes)
	}
}

func TestCNIConfigOfNAD(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "20-a.conf"), []byte(`{"cniVersion":"1.0.0","name":"other","type":"x"}`), 0o600)
	_ = os.WriteFile(filepath.Join(dir, "30-b.conflist"), []byte(`{"cniVersion":"1.0.0","name":"onfile","plugins":[{"type":"y"}]}`), 0o600)
	tests := []struct {
		n       nad
		want    string
		wantErr string
	}{
		{nad{Name: "rail1", Config: `{"cniVersion":"1.0.0","name":"given","type":"x"}`}, `{"cniVersion":"1.0.0","name":"given","type":"x"}`, ""},
		{nad{Name: "rail1", Config: `{"type":"x","cniVersion":"1.0.0"}`}, `{"cniVersion":"1.0.0","name":"rail1","type":"x"}`, ""},
		{nad{Name: "onfile"}, `{"cniVersion":"1.0.0","name":"onfile","plugins":[{"type":"y"}]}`, ""},
		{nad{Name: "nowhere"}, "", "no network available in the name nowhere"},
		{nad{Name: "bad", Config: `{`}, "", "failed to unmarshal Spec.Config"},
	}
	for _, tt := range tests {
		got, err := cniConfigOfNAD(&tt.n, dir)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v", tt.n.Name, err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %s, %v", tt.n.Name, got, err)
		}
	}
}

func TestCreateNetworkStatuses(t *testing.T) {
	res := func(s string) *cni100.Result {
		r := &cni100.Result{}
		if err := json.Unmarshal([]byte(s), r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, err := createNetworkStatuses(res(`{"cniVersion":"1.0.0","interfaces":[{"name":"net1","mac":"02:00:00:00:00:01","sandbox":"/x"}],`+
		`"ips":[{"address":"10.0.0.2/24","interface":0}],"routes":[{"dst":"0.0.0.0/0","gw":"10.0.0.1"}],"dns":{"nameservers":["1.1.1.1"]}}`), "d/rail1", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := networkStatusAnnotation(one)
	want := "[{\n    \"name\": \"d/rail1\",\n    \"interface\": \"net1\",\n    \"ips\": [\n        \"10.0.0.2\"\n    ],\n" +
		"    \"mac\": \"02:00:00:00:00:01\",\n    \"dns\": {\n        \"nameservers\": [\n            \"1.1.1.1\"\n        ]\n    },\n" +
		"    \"gateway\": [\n        \"10.0.0.1\"\n    ]\n}]"
	if got != want {
		t.Errorf("annotation\n%s\nwant\n%s", got, want)
	}

	multi, err := createNetworkStatuses(res(`{"cniVersion":"1.0.0","interfaces":[{"name":"cni0"},{"name":"veth1"},{"name":"eth0","sandbox":"/x"},{"name":"eth1","sandbox":"/x"}],`+
		`"ips":[{"address":"10.244.1.5/24","interface":2,"gateway":"10.244.1.1"},{"address":"10.1.0.5/24","interface":3},{"address":"10.9.0.5/24"}]}`), "podnet", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(multi) != 2 || !multi[0].Default || multi[1].Default || multi[0].Interface != "eth0" ||
		!reflect.DeepEqual(multi[0].IPs, []string{"10.244.1.5"}) || !reflect.DeepEqual(multi[1].IPs, []string{"10.1.0.5", "10.9.0.5"}) {
		t.Errorf("multi %+v", multi)
	}
}

func TestGatewayCache(t *testing.T) {
	r := map[string]interface{}{"cniVersion": "1.0.0", "routes": []interface{}{
		map[string]interface{}{"dst": "0.0.0.0/0", "gw": "10.0.0.1"},
		map[string]interface{}{"dst": "10.2.0.0/16"},
	}}
	if err := deleteDefaultGWFromResult(r, true, false); err != nil {
		t.Fatal(err)
	}
	if routes := r["routes"].([]interface{}); len(routes) != 1 {
		t.Errorf("routes %v", routes)
	}
	if err := addDefaultGWToResult(r, []net.IP{net.ParseIP("10.0.0.9")}); err != nil {
		t.Fatal(err)
	}
	if routes := r["routes"].([]interface{}); len(routes) != 2 {
		t.Errorf("routes %v", routes)
	}
	ds := []*delegateNetConf{{}, {GatewayRequest: &[]net.IP{net.ParseIP("10.0.0.9")}}}
	if err := checkGatewayConfig(ds); err != nil || !ds[0].IsFilterV4Gateway || ds[1].IsFilterV4Gateway || !ds[1].IsFilterV6Gateway {
		t.Errorf("%v %+v %+v", err, ds[0], ds[1])
	}
	ds = append(ds, &delegateNetConf{GatewayRequest: &[]net.IP{net.ParseIP("10.0.0.8")}})
	if err := checkGatewayConfig(ds); err == nil {
		t.Error("two v4 gateways accepted")
	}
}

func TestLoadNetConf(t *testing.T) {
	n, err := loadNetConf([]byte(`{"cniVersion":"1.0.0","name":"multus-cni-network","type":"multus","clusterNetwork":"/x.conflist","unknownKey":{"a":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n.CNIDir != defaultCNIDir || n.BinDir != defaultBinDir || n.ConfDir != defaultConfDir || n.MultusNamespace != "kube-system" ||
		!n.LogToStderr || !reflect.DeepEqual(n.SystemNamespaces, []string{"kube-system"}) {
		t.Errorf("defaults: %+v", n)
	}
	n, err = loadNetConf([]byte(`{"name":"m","type":"multus","delegates":[{"cniVersion":"1.0.0","name":"podnet","plugins":[{"type":"bridge"}]}]}`))
	if err != nil || len(n.delegates) != 1 || !n.delegates[0].MasterPlugin || !n.delegates[0].ConfListPlugin {
		t.Errorf("delegates: %v %+v", err, n)
	}
	if _, err := loadNetConf([]byte(`{"name":"m","type":"multus"}`)); err == nil {
		t.Error("no delegate accepted")
	}
	logger.stderr, logger.file = true, nil
}

/* ------------------------------------------------------------------ */
/* ADD / DEL against a fake API server, kubelet and plugins            */
/* ------------------------------------------------------------------ */

type fakeAPI struct {
	mu     sync.Mutex
	pod    *corev1.Pod
	nads   map[string]string // name -> JSON object
	status string            // the network-status written
	events []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	notFound := func(kind, name string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,`+
			`"message":"%s %q not found","details":{"name":%q,"kind":%q}}`, kind, name, name, kind)
	}
	writeJSON := func(v interface{}) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/v1/namespaces/default/pods/"):
		name := strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/namespaces/default/pods/"), "/status")
		if f.pod == nil || name != f.pod.Name {
			notFound("pods", name)
			return
		}
		if r.Method == http.MethodPut {
			body, _ := io.ReadAll(r.Body)
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			f.status = obj.(*corev1.Pod).Annotations[networkStatusAnnot]
			f.pod.Annotations[networkStatusAnnot] = f.status
		}
		writeJSON(f.pod)
	case strings.HasPrefix(p, "/apis/k8s.cni.cncf.io/v1/namespaces/default/network-attachment-definitions/"):
		name := strings.TrimPrefix(p, "/apis/k8s.cni.cncf.io/v1/namespaces/default/network-attachment-definitions/")
		obj, ok := f.nads[name]
		if !ok {
			notFound("network-attachment-definitions.k8s.cni.cncf.io", name)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, obj)
	case p == "/api/v1/namespaces/default/events" && r.Method == http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		if obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil); err == nil {
			ev := obj.(*corev1.Event)
			f.events = append(f.events, ev.Reason+": "+ev.Message)
		}
		w.WriteHeader(201)
		writeJSON(map[string]interface{}{"kind": "Event", "apiVersion": "v1", "metadata": map[string]string{"name": "e"}})
	default:
		http.Error(w, "unexpected "+r.Method+" "+p, 404)
	}
}

func nadJSON(name, resource, config string) string {
	annots := map[string]string{}
	if resource != "" {
		annots[resourceNameAnnot] = resource
	}
	b, _ := json.Marshal(map[string]interface{}{
		"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
		"metadata": map[string]interface{}{"name": name, "namespace": "default", "annotations": annots},
		"spec":     map[string]interface{}{"config": config},
	})
	return string(b)
}

type fakeKubelet struct {
	podresourcesapi.UnimplementedPodResourcesListerServer
}

func (fakeKubelet) List(context.Context, *podresourcesapi.ListPodResourcesRequest) (*podresourcesapi.ListPodResourcesResponse, error) {
	return &podresourcesapi.ListPodResourcesResponse{PodResources: []*podresourcesapi.PodResources{{
		Name: "p1", Namespace: "default",
		Containers: []*podresourcesapi.ContainerResources{{Name: "c", Devices: []*podresourcesapi.ContainerDevices{
			{ResourceName: "rdma/vf", DeviceIds: []string{"0000:3b:00.3", "0000:3b:00.2"}}}}},
	}}}, nil
}

// the fake plugin: logs "CMD IFNAME CNI_ARGS<TAB>stdin" and answers ADD
// with an interface and an address (or fails on "failme")
const fakePlugin = `#!/bin/sh
in=$(cat)
printf '%s %s %s\t%s\n' "$CNI_COMMAND" "$CNI_IFNAME" "$CNI_ARGS" "$in" >>"$(dirname "$0")/../calls.log"
case "$in" in *failme*) echo '{"cniVersion":"1.0.0","code":11,"msg":"boom"}'; exit 1;; esac
[ "$CNI_COMMAND" = ADD ] || exit 0
case "$(basename "$0")" in fakeprimary) ip=10.244.1.5/24;; *) ip=192.168.7.5/24;; esac
printf '{"cniVersion":"1.0.0","interfaces":[{"name":"%s","sandbox":"%s","mac":"02:00:00:00:00:01"}],"ips":[{"address":"%s","interface":0}]}' "$CNI_IFNAME" "$CNI_NETNS" "$ip"
`

type call struct{ cmd, ifname, args, stdin string }

func readCalls(t *testing.T, path string) []call {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		head, stdin, _ := strings.Cut(sc.Text(), "\t")
		parts := strings.SplitN(head, " ", 3)
		calls = append(calls, call{parts[0], parts[1], parts[2], stdin})
	}
	_ = os.Remove(path)
	return calls
}

func TestAddDelFlow(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a network namespace)")
	}
	podNS, err := testutils.NewNS()
	if err != nil {
		t.Skipf("cannot make a network namespace: %v", err)
	}
	defer func() { _ = podNS.Close(); _ = testutils.UnmountNS(podNS) }()

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	_ = os.MkdirAll(bin, 0o755)
	for _, n := range []string{"fakeprimary", "fakesec"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(fakePlugin), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	callLog := filepath.Join(dir, "calls.log")
	conflist := filepath.Join(dir, "10-podnet.conflist")
	_ = os.WriteFile(conflist, []byte(`{"cniVersion":"1.0.0","name":"podnet","plugins":[{"type":"fakeprimary"}]}`), 0o600)

	api := &fakeAPI{nads: map[string]string{
		"rail1": nadJSON("rail1", "rdma/vf", `{"cniVersion":"1.0.0","name":"rail1","plugins":[{"type":"fakesec","capabilities":{"deviceID":true,"mac":true}}]}`),
		"rail2": nadJSON("rail2", "rdma/vf", `{"cniVersion":"1.0.0","type":"fakesec"}`),
		"bad":   nadJSON("bad", "", `{"cniVersion":"1.0.0","name":"bad","type":"fakesec","failme":true}`),
	}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	_ = os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, srv.URL)), 0o600)

	sock := filepath.Join(dir, "kubelet.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	podresourcesapi.RegisterPodResourcesListerServer(gs, fakeKubelet{})
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	conf := fmt.Sprintf(`{"cniVersion":"1.0.0","name":"multus-cni-network","type":"multus","kubeconfig":%q,`+
		`"clusterNetwork":%q,"cniDir":%q,"binDir":%q,"kubeletPodResourcesSocket":%q}`,
		kubeconfig, conflist, filepath.Join(dir, "cache"), bin, sock)
	args := func(cid, uid string) *skel.CmdArgs {
		return &skel.CmdArgs{ContainerID: cid, Netns: podNS.Path(), IfName: "eth0", StdinData: []byte(conf),
			Args: "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=p1;K8S_POD_INFRA_CONTAINER_ID=" + cid + ";K8S_POD_UID=" + uid}
	}
	setPod := func(networks string) {
		api.mu.Lock()
		defer api.mu.Unlock()
		api.pod = &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "default", UID: types.UID("uid1"),
				Annotations: map[string]string{networkAttachmentAnnot: networks}}}
		api.status, api.events = "", nil
	}

	// ADD: podnet as eth0, rail1 as r1 (a mac asked), rail2 as net2; the
	// pod's two VFs, sorted, one per network
	setPod(`[{"name":"rail1","interface":"r1","mac":"02:11:22:33:44:55"},{"name":"rail2"}]`)
	r, err := cmdAdd(args("cid1", "uid1"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := cni100.NewResultFromResult(r)
	if len(res.IPs) != 1 || res.IPs[0].Address.String() != "10.244.1.5/24" {
		t.Errorf("result %+v: not the cluster network's", res)
	}
	calls := readCalls(t, callLog)
	if len(calls) != 3 {
		t.Fatalf("calls %+v", calls)
	}
	for i, want := range []string{"ADD eth0", "ADD r1", "ADD net2"} {
		if calls[i].cmd+" "+calls[i].ifname != want {
			t.Errorf("call %d: %s %s, want %s", i, calls[i].cmd, calls[i].ifname, want)
		}
		if !strings.HasPrefix(calls[i].args, "IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=p1;K8S_POD_INFRA_CONTAINER_ID=cid1;K8S_POD_UID=uid1;IgnoreUnknown=1;") {
			t.Errorf("call %d CNI_ARGS %s", i, calls[i].args)
		}
	}
	if !strings.HasSuffix(calls[1].args, ";MAC=02:11:22:33:44:55") {
		t.Errorf("rail1 CNI_ARGS %s", calls[1].args)
	}
	var c1, c2 map[string]interface{}
	_ = json.Unmarshal([]byte(calls[1].stdin), &c1)
	_ = json.Unmarshal([]byte(calls[2].stdin), &c2)
	rc, _ := c1["runtimeConfig"].(map[string]interface{})
	if c1["deviceID"] != "0000:3b:00.2" || c1["pciBusID"] != "0000:3b:00.2" || rc["deviceID"] != "0000:3b:00.2" || rc["mac"] != "02:11:22:33:44:55" {
		t.Errorf("rail1 stdin %s", calls[1].stdin)
	}
	if c2["deviceID"] != "0000:3b:00.3" || c2["pciBusID"] != "0000:3b:00.3" || c2["name"] != "rail2" || c2["runtimeConfig"] != nil {
		t.Errorf("rail2 stdin %s", calls[2].stdin)
	}
	var statuses []networkStatus
	if err := json.Unmarshal([]byte(api.status), &statuses); err != nil {
		t.Fatalf("network-status %q: %v", api.status, err)
	}
	if len(statuses) != 3 || statuses[0].Name != "podnet" || !statuses[0].Default || statuses[0].Interface != "eth0" ||
		statuses[1].Name != "default/rail1" || statuses[1].Interface != "r1" || statuses[1].IPs[0] != "192.168.7.5" ||
		statuses[2].Name != "default/rail2" || statuses[2].Interface != "net2" || statuses[2].Default {
		t.Errorf("network-status %s", api.status)
	}
	if len(api.events) != 3 || api.events[1] != "AddedInterface: Add r1 [192.168.7.5/24] from default/rail1" {
		t.Errorf("events %q", api.events)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "cid1")); err != nil {
		t.Errorf("no cache: %v", err)
	}

	// DEL from the cache, even with the pod gone: reverse order
	setPod("")
	api.mu.Lock()
	api.pod = nil
	api.mu.Unlock()
	if err := cmdDel(args("cid1", "uid1")); err != nil {
		t.Fatal(err)
	}
	calls = readCalls(t, callLog)
	var got []string
	for _, c := range calls {
		got = append(got, c.cmd+" "+c.ifname)
	}
	if !reflect.DeepEqual(got, []string{"DEL net2", "DEL r1", "DEL eth0"}) {
		t.Errorf("DEL calls %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "cid1")); !os.IsNotExist(err) {
		t.Errorf("cache left: %v", err)
	}
	// a second DEL: no cache, no pod: nothing to do, no error
	if err := cmdDel(args("cid1", "uid1")); err != nil || len(readCalls(t, callLog)) != 0 {
		t.Errorf("second DEL: %v", err)
	}

	// a failing network: those added are deleted, the error names it
	setPod("bad")
	_, err = cmdAdd(args("cid2", "uid1"))
	if err == nil || !strings.Contains(err.Error(), `error adding container to network "bad"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error %v", err)
	}
	got = nil
	for _, c := range readCalls(t, callLog) {
		got = append(got, c.cmd+" "+c.ifname)
	}
	if !reflect.DeepEqual(got, []string{"ADD eth0", "ADD net1", "DEL net1", "DEL eth0"}) {
		t.Errorf("calls %v", got)
	}

	// a missing NAD
	setPod("nowhere")
	if _, err = cmdAdd(args("cid3", "uid1")); err == nil || !strings.Contains(err.Error(), "cannot find a network-attachment-definition (nowhere)") {
		t.Errorf("error %v", err)
	}
	if len(api.events) != 1 || !strings.HasPrefix(api.events[0], "NoNetworkFound: ") {
		t.Errorf("events %q", api.events)
	}
	readCalls(t, callLog)

	// another UID: ADD fails before running anything
	setPod("rail1")
	if _, err = cmdAdd(args("cid4", "uid-other")); err == nil || !strings.Contains(err.Error(), `expected pod UID "uid-other" but got "uid1"`) {
		t.Errorf("error %v", err)
	}
	if calls := readCalls(t, callLog); len(calls) != 0 {
		t.Errorf("calls %+v", calls)
	}

	// the pod gone at ADD: an empty result, nothing run
	api.mu.Lock()
	api.pod = nil
	api.mu.Unlock()
	if r, err = cmdAdd(args("cid5", "uid1")); err != nil {
		t.Fatal(err)
	}
	if res, _ := cni100.NewResultFromResult(r); len(res.IPs) != 1 || res.IPs[0].Address.String() != "0.0.0.0/0" {
		t.Errorf("result %+v", r)
	}
	if calls := readCalls(t, callLog); len(calls) != 0 {
		t.Errorf("calls %+v", calls)
	}
	logger.stderr, logger.file = true, nil
}
