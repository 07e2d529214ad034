// Command multus is a stand-in for the Multus thin plugin (Multus is not served by the Go module proxy), following its v4 behaviour for what rdmanet's tests use.
//
// It is written from Multus's behaviour, not copied: the upstream files each
// part follows are named where it is (github.com/k8snetworkplumbingwg/
// multus-cni: pkg/multus/multus.go, pkg/types/{conf,types}.go,
// pkg/k8sclient/k8sclient.go, pkg/kubeletclient, pkg/checkpoint,
// pkg/netutils, pkg/logging; github.com/k8snetworkplumbingwg/
// network-attachment-definition-client: pkg/utils). What it leaves out: the
// DRA resource map (pkg/draclient), the thick plugin (daemon, shim, informers)
// and log rotation.
//
// On ADD it loads the cluster network (the node conf's "clusterNetwork" or
// "delegates"), reads the pod's k8s.v1.cni.cncf.io/networks annotation, turns
// each selected NetworkAttachmentDefinition into a delegate (its deviceID from
// the kubelet's PodResources API when the NAD names a resource), caches the
// delegates under cniDir, runs them in order through libcni (eth0, then net1,
// net2, ...), writes the pod's k8s.v1.cni.cncf.io/network-status and returns
// the cluster network's result. DEL runs the cached delegates in reverse.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/skel"
	cnitypes "github.com/containernetworking/cni/pkg/types"
	cni100 "github.com/containernetworking/cni/pkg/types/100"
	cniversion "github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8snet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
)

const (
	// the stand-in's version string (-version)
	standInVersion = "rdmanet stand-in of multus-cni v4 (thin plugin)"

	// pkg/types/conf.go defaults
	defaultCNIDir          = "/var/lib/cni/multus"
	defaultConfDir         = "/etc/cni/multus/net.d"
	defaultBinDir          = "/opt/cni/bin"
	defaultMultusNamespace = "kube-system"
	defaultNonIsolatedNS   = "default"

	// pkg/k8sclient/k8sclient.go and the NAD client's annotations
	resourceNameAnnot      = "k8s.v1.cni.cncf.io/resourceName"
	defaultNetAnnot        = "v1.multus-cni.io/default-network"
	networkAttachmentAnnot = "k8s.v1.cni.cncf.io/networks"
	networkStatusAnnot     = "k8s.v1.cni.cncf.io/network-status"
	configSourceAnnot      = "kubernetes.io/config.source"

	// pkg/kubeletclient and pkg/checkpoint
	defaultPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock"
	podResourcesMaxMsgSize    = 16 * 1024 * 1024
	kubeletTimeout            = 10 * time.Second
	deviceCheckpointFile      = "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"

	// the NAD client's device-info directory (pkg/utils/cniconfig.go)
	devInfoBaseDir = "/var/run/k8s.cni.cncf.io/devinfo"

	// GetPod's polling (pkg/multus/multus.go)
	podPollInterval = 250 * time.Millisecond
	podPollTimeout  = 2500 * time.Millisecond
)

var nadGVR = schema.GroupVersionResource{Group: "k8s.cni.cncf.io", Version: "v1", Resource: "network-attachment-definitions"}

// errPodNotFound: the pod is gone (ADD then returns an empty result).
var errPodNotFound = errors.New("pod not found during Multus GetPod")

/* ------------------------------------------------------------------ */
/* logging (pkg/logging): levels panic < error < verbose < debug, the */
/* default panic (quiet); stderr unless logToStderr is false, and the */
/* file of logFile too.                                               */
/* ------------------------------------------------------------------ */

type logLevel int

const (
	panicLevel logLevel = iota
	errorLevel
	verboseLevel
	debugLevel
)

func (l logLevel) String() string {
	switch l {
	case panicLevel:
		return "panic"
	case errorLevel:
		return "error"
	case verboseLevel:
		return "verbose"
	case debugLevel:
		return "debug"
	}
	return "unknown"
}

var logger = struct {
	level  logLevel
	stderr bool
	file   io.Writer
}{level: panicLevel, stderr: true}

func setLogLevel(s string) {
	switch strings.ToLower(s) {
	case "debug":
		logger.level = debugLevel
	case "verbose":
		logger.level = verboseLevel
	case "error":
		logger.level = errorLevel
	case "panic":
		logger.level = panicLevel
	default:
		fmt.Fprintf(os.Stderr, "multus logging: cannot set logging level to %s\n", s)
	}
}

func setLogFile(path string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "multus logging: %v\n", err)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "multus logging: %v\n", err)
		return
	}
	logger.file = f
}

func logAt(l logLevel, format string, a ...interface{}) {
	if l > logger.level {
		return
	}
	line := fmt.Sprintf("%s [%s] %s\n", time.Now().Format(time.RFC3339), l, fmt.Sprintf(format, a...))
	if logger.stderr {
		_, _ = io.WriteString(os.Stderr, line)
	}
	if logger.file != nil {
		_, _ = io.WriteString(logger.file, line)
	}
}

func debugf(format string, a ...interface{})   { logAt(debugLevel, format, a...) }
func verbosef(format string, a ...interface{}) { logAt(verboseLevel, format, a...) }

// errorf logs at the error level and returns the message as an error.
func errorf(format string, a ...interface{}) error {
	logAt(errorLevel, format, a...)
	return fmt.Errorf(format, a...)
}

/* ------------------------------------------------------------------ */
/* configuration types (pkg/types/types.go)                           */
/* ------------------------------------------------------------------ */

// netConf is the node conf (stdin). Unknown keys are ignored.
type netConf struct {
	CNIVersion string `json:"cniVersion"`
	Name       string `json:"name"`
	Type       string `json:"type"`

	ConfDir string `json:"confDir"`
	CNIDir  string `json:"cniDir"`
	BinDir  string `json:"binDir"`

	// "delegates" (inline CNI configs, the first the cluster network) or
	// "clusterNetwork" (+ "defaultNetworks"): a path, or a NAD / conf name
	RawDelegates    []map[string]interface{} `json:"delegates"`
	ClusterNetwork  string                   `json:"clusterNetwork"`
	DefaultNetworks []string                 `json:"defaultNetworks"`

	Kubeconfig  string `json:"kubeconfig"`
	LogFile     string `json:"logFile"`
	LogLevel    string `json:"logLevel"`
	LogToStderr bool   `json:"logToStderr"`

	RuntimeConfig *runtimeConfig `json:"runtimeConfig,omitempty"`

	ReadinessIndicatorFile   string   `json:"readinessindicatorfile"`
	NamespaceIsolation       bool     `json:"namespaceIsolation"`
	RawNonIsolatedNamespaces string   `json:"globalNamespaces"`
	AuxiliaryCNIChainName    string   `json:"auxiliaryCNIChainName,omitempty"`
	SystemNamespaces         []string `json:"systemNamespaces"`
	MultusNamespace          string   `json:"multusNamespace"`
	RetryDeleteOnError       bool     `json:"retryDeleteOnError"`

	// Not an upstream key: upstream always uses the kubelet's default
	// socket. Kept for a kubelet with another root directory.
	KubeletPodResourcesSocket string `json:"kubeletPodResourcesSocket"`

	nonIsolatedNamespaces []string
	delegates             []*delegateNetConf
}

// runtimeConfig is the runtimeConfig Multus passes on (as capability args).
type runtimeConfig struct {
	PortMaps          []*portMapEntry `json:"portMappings,omitempty"`
	Bandwidth         *bandwidthEntry `json:"bandwidth,omitempty"`
	IPs               []string        `json:"ips,omitempty"`
	Mac               string          `json:"mac,omitempty"`
	InfinibandGUID    string          `json:"infinibandGUID,omitempty"`
	DeviceID          string          `json:"deviceID,omitempty"`
	CNIDeviceInfoFile string          `json:"CNIDeviceInfoFile,omitempty"`
}

type portMapEntry struct {
	HostPort      int    `json:"hostPort"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
	HostIP        string `json:"hostIP,omitempty"`
}

type bandwidthEntry struct {
	IngressRate  int `json:"ingressRate"`
	IngressBurst int `json:"ingressBurst"`
	EgressRate   int `json:"egressRate"`
	EgressBurst  int `json:"egressBurst"`
}

// delegateNetConf is one network of the pod. Its JSON form (the cache file
// under cniDir) has the field names upstream's DelegateNetConf has.
type delegateNetConf struct {
	Conf                  cnitypes.PluginConf
	ConfList              cnitypes.NetConfList
	Name                  string
	IfnameRequest         string          `json:"ifnameRequest,omitempty"`
	MacRequest            string          `json:"macRequest,omitempty"`
	InfinibandGUIDRequest string          `json:"infinibandGUIDRequest,omitempty"`
	IPRequest             []string        `json:"ipRequest,omitempty"`
	PortMappingsRequest   []*portMapEntry `json:"-"`
	BandwidthRequest      *bandwidthEntry `json:"-"`
	GatewayRequest        *[]net.IP       `json:"default-route,omitempty"`
	IsFilterV4Gateway     bool
	IsFilterV6Gateway     bool
	MasterPlugin          bool   `json:"-"`
	ConfListPlugin        bool   `json:"-"`
	DeviceID              string `json:"deviceID,omitempty"`
	ResourceName          string `json:"resourceName,omitempty"`
	// the complete CNI config (conf or conflist) the delegate runs with
	Bytes []byte
}

// netName is the CNI network name (libcni's cache key).
func (d *delegateNetConf) netName() string {
	if d.Conf.Name != "" {
		return d.Conf.Name
	}
	return d.ConfList.Name
}

// networkSelectionElement is one entry of the networks annotation.
type networkSelectionElement struct {
	Name                       string                  `json:"name"`
	Namespace                  string                  `json:"namespace,omitempty"`
	IPRequest                  []string                `json:"ips,omitempty"`
	MacRequest                 string                  `json:"mac,omitempty"`
	InfinibandGUIDRequest      string                  `json:"infiniband-guid,omitempty"`
	InterfaceRequest           string                  `json:"interface,omitempty"`
	DeprecatedInterfaceRequest string                  `json:"interfaceRequest,omitempty"`
	PortMappingsRequest        []*portMapEntry         `json:"portMappings,omitempty"`
	BandwidthRequest           *bandwidthEntry         `json:"bandwidth,omitempty"`
	DeviceID                   string                  `json:"deviceID,omitempty"`
	CNIArgs                    *map[string]interface{} `json:"cni-args"`
	GatewayRequest             *[]net.IP               `json:"default-route,omitempty"`
}

// k8sArgs are the CNI_ARGS the runtime passes (cnitypes.LoadArgs).
type k8sArgs struct {
	cnitypes.CommonArgs
	IP                         net.IP
	K8S_POD_NAME               cnitypes.UnmarshallableString //nolint:revive
	K8S_POD_NAMESPACE          cnitypes.UnmarshallableString //nolint:revive
	K8S_POD_INFRA_CONTAINER_ID cnitypes.UnmarshallableString //nolint:revive
	K8S_POD_UID                cnitypes.UnmarshallableString //nolint:revive
}

func getK8sArgs(args *skel.CmdArgs) (*k8sArgs, error) {
	k := &k8sArgs{}
	if err := cnitypes.LoadArgs(args.Args, k); err != nil {
		return nil, err
	}
	return k, nil
}

// resourceInfo is a pod's devices of one resource; Index is the next one
// to give to a network.
type resourceInfo struct {
	Index     int
	DeviceIDs []string
}

// the network-status entry (the NAD client's NetworkStatus)
type dnsInfo struct {
	Nameservers []string `json:"nameservers,omitempty"`
	Domain      string   `json:"domain,omitempty"`
	Search      []string `json:"search,omitempty"`
	Options     []string `json:"options,omitempty"`
}

type networkStatus struct {
	Name       string      `json:"name"`
	Interface  string      `json:"interface,omitempty"`
	IPs        []string    `json:"ips,omitempty"`
	Mac        string      `json:"mac,omitempty"`
	Mtu        int         `json:"mtu,omitempty"`
	Default    bool        `json:"default,omitempty"`
	DNS        dnsInfo     `json:"dns,omitempty"`
	DeviceInfo *deviceInfo `json:"device-info,omitempty"`
	Gateway    []string    `json:"gateway,omitempty"`
}

// deviceInfo is the device-info file's content (the NAD client's DeviceInfo).
type deviceInfo struct {
	Type    string `json:"type,omitempty"`
	Version string `json:"version,omitempty"`
	Pci     *struct {
		PciAddress        string `json:"pci-address,omitempty"`
		Vhostnet          string `json:"vhost-net,omitempty"`
		RdmaDevice        string `json:"rdma-device,omitempty"`
		PfPciAddress      string `json:"pf-pci-address,omitempty"`
		RepresentorDevice string `json:"representor-device,omitempty"`
	} `json:"pci,omitempty"`
	Vdpa *struct {
		ParentDevice      string `json:"parent-device,omitempty"`
		Driver            string `json:"driver,omitempty"`
		Path              string `json:"path,omitempty"`
		PciAddress        string `json:"pci-address,omitempty"`
		PfPciAddress      string `json:"pf-pci-address,omitempty"`
		RepresentorDevice string `json:"representor-device,omitempty"`
	} `json:"vdpa,omitempty"`
	VhostUser *struct {
		Mode string `json:"mode,omitempty"`
		Path string `json:"path,omitempty"`
	} `json:"vhost-user,omitempty"`
	Memif *struct {
		Role string `json:"role,omitempty"`
		Path string `json:"path,omitempty"`
		Mode string `json:"mode,omitempty"`
	} `json:"memif,omitempty"`
}

/* ------------------------------------------------------------------ */
/* node conf (pkg/types/conf.go LoadNetConf)                          */
/* ------------------------------------------------------------------ */

func loadNetConf(b []byte) (*netConf, error) {
	n := &netConf{
		BinDir:                defaultBinDir,
		ConfDir:               defaultConfDir,
		CNIDir:                defaultCNIDir,
		LogToStderr:           true,
		MultusNamespace:       defaultMultusNamespace,
		nonIsolatedNamespaces: []string{defaultNonIsolatedNS},
		SystemNamespaces:      []string{"kube-system"},
	}
	if err := json.Unmarshal(b, n); err != nil {
		return nil, errorf("LoadNetConf: failed to load netconf: %v", err)
	}
	logger.stderr = n.LogToStderr
	setLogFile(n.LogFile)
	if n.LogLevel != "" {
		setLogLevel(n.LogLevel)
	}
	debugf("LoadNetConf: %s", string(b))

	if len(n.RawDelegates) == 0 && n.ClusterNetwork == "" {
		return nil, errorf("LoadNetConf: at least one delegate/clusterNetwork must be specified")
	}
	if n.RawNonIsolatedNamespaces != "" {
		n.nonIsolatedNamespaces = nil
		for _, s := range strings.Split(n.RawNonIsolatedNamespaces, ",") {
			n.nonIsolatedNamespaces = append(n.nonIsolatedNamespaces, strings.TrimSpace(s))
		}
	}
	// "delegates" only count without a clusterNetwork
	if n.ClusterNetwork == "" {
		for i, raw := range n.RawDelegates {
			db, err := json.Marshal(raw)
			if err != nil {
				return nil, errorf("LoadNetConf: error marshalling delegate %d config: %v", i, err)
			}
			d, err := loadDelegateNetConf(db, nil, "", "")
			if err != nil {
				return nil, errorf("LoadNetConf: failed to load delegate %d config: %v", i, err)
			}
			n.delegates = append(n.delegates, d)
		}
		n.delegates[0].MasterPlugin = true
	}
	n.RawDelegates = nil
	return n, nil
}

/* ------------------------------------------------------------------ */
/* delegates (pkg/types/conf.go)                                      */
/* ------------------------------------------------------------------ */

// loadDelegateNetConf makes a delegate of a CNI config: a conf if it has a
// "type", else a conflist. A deviceID goes into the config ("deviceID" and
// "pciBusID", in every plugin of a conflist), then the selection's
// cni-args (into "args": {"cni": ...}).
func loadDelegateNetConf(b []byte, sel *networkSelectionElement, deviceID, resourceName string) (*delegateNetConf, error) {
	debugf("LoadDelegateNetConf: %s, %v, %s", string(b), sel, deviceID)
	d := &delegateNetConf{}
	if err := json.Unmarshal(b, &d.Conf); err != nil {
		return nil, errorf("LoadDelegateNetConf: error unmarshalling delegate config: %v", err)
	}
	d.Name = d.Conf.Name

	var err error
	if d.Conf.Type == "" {
		if err := json.Unmarshal(b, &d.ConfList); err != nil {
			return nil, errorf("LoadDelegateNetConf: failed with: LoadDelegateNetConfList: error unmarshalling delegate conflist: %v", err)
		}
		if d.ConfList.Plugins == nil {
			return nil, errorf("LoadDelegateNetConf: failed with: LoadDelegateNetConfList: delegate must have the 'type' or 'plugin' field")
		}
		if d.ConfList.Plugins[0].Type == "" {
			return nil, errorf("LoadDelegateNetConf: failed with: LoadDelegateNetConfList: a plugin delegate must have the 'type' field")
		}
		d.ConfListPlugin = true
		d.Name = d.ConfList.Name
		if deviceID != "" {
			if b, err = addDeviceIDInConfList(b, deviceID); err != nil {
				return nil, errorf("LoadDelegateNetConf: failed to add deviceID in NetConfList bytes: %v", err)
			}
			d.ResourceName = resourceName
			d.DeviceID = deviceID
		}
		if sel != nil && sel.CNIArgs != nil {
			if b, err = addCNIArgsInConfList(b, sel.CNIArgs); err != nil {
				return nil, errorf("LoadDelegateNetConf(): failed to add cni-args in NetConfList bytes: %v", err)
			}
		}
	} else {
		if deviceID != "" {
			if b, err = addDeviceIDInConf(b, deviceID); err != nil {
				return nil, errorf("LoadDelegateNetConf: failed to add deviceID in NetConf bytes: %v", err)
			}
			d.ResourceName = resourceName
			d.DeviceID = deviceID
		}
		if sel != nil && sel.CNIArgs != nil {
			if b, err = addCNIArgsInConf(b, sel.CNIArgs); err != nil {
				return nil, errorf("LoadDelegateNetConf(): failed to add cni-args in NetConfList bytes: %v", err)
			}
		}
	}
	applySelection(d, sel, deviceID)
	d.Bytes = b
	return d, nil
}

// applySelection copies what the pod asked for in its selection.
func applySelection(d *delegateNetConf, sel *networkSelectionElement, deviceID string) {
	if sel == nil {
		return
	}
	if sel.Name != "" {
		// the network's name is the NAD's namespace/name
		d.Name = fmt.Sprintf("%s/%s", sel.Namespace, sel.Name)
	}
	if sel.InterfaceRequest != "" {
		d.IfnameRequest = sel.InterfaceRequest
	}
	if sel.MacRequest != "" {
		d.MacRequest = sel.MacRequest
	}
	if sel.IPRequest != nil {
		d.IPRequest = sel.IPRequest
	}
	if sel.BandwidthRequest != nil {
		d.BandwidthRequest = sel.BandwidthRequest
	}
	if sel.PortMappingsRequest != nil {
		d.PortMappingsRequest = sel.PortMappingsRequest
	}
	if sel.GatewayRequest != nil {
		var gws []net.IP
		if d.GatewayRequest != nil {
			gws = append(gws, *d.GatewayRequest...)
		}
		gws = append(gws, *sel.GatewayRequest...)
		d.GatewayRequest = &gws
	}
	if sel.InfinibandGUIDRequest != "" {
		d.InfinibandGUIDRequest = sel.InfinibandGUIDRequest
	}
	if sel.DeviceID != "" {
		if deviceID != "" {
			debugf("Warning: Both RuntimeConfig and ResourceMap provide deviceID. Ignoring RuntimeConfig")
		} else {
			d.DeviceID = sel.DeviceID
		}
	}
}

// loadDelegateFromConfList makes the delegate of a conflist loaded from a
// file (the cluster network), its Bytes holding every plugin, those of a
// subdirectory chain included.
func loadDelegateFromConfList(list *libcni.NetworkConfigList) (*delegateNetConf, error) {
	d := &delegateNetConf{
		Name:           list.Name,
		ConfListPlugin: true,
		ConfList: cnitypes.NetConfList{
			CNIVersion:   list.CNIVersion,
			Name:         list.Name,
			DisableCheck: list.DisableCheck,
			DisableGC:    list.DisableGC,
		},
	}
	for _, p := range list.Plugins {
		d.ConfList.Plugins = append(d.ConfList.Plugins, p.Network)
	}
	b, err := fullConfListBytes(list)
	if err != nil {
		return nil, errorf("LoadDelegateNetConfFromConfList: error rebuilding conflist bytes: %v", err)
	}
	d.Bytes = b
	return d, nil
}

// fullConfListBytes is the conflist's JSON with its list keys as written
// and "plugins" made of every loaded plugin's own JSON.
func fullConfListBytes(list *libcni.NetworkConfigList) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(list.Bytes, &top); err != nil {
		return nil, err
	}
	plugins := make([]json.RawMessage, 0, len(list.Plugins))
	for _, p := range list.Plugins {
		plugins = append(plugins, json.RawMessage(p.Bytes))
	}
	pb, err := json.Marshal(plugins)
	if err != nil {
		return nil, err
	}
	top["plugins"] = pb
	return json.Marshal(top)
}

func addDeviceIDInConf(b []byte, deviceID string) ([]byte, error) {
	var conf map[string]interface{}
	if err := json.Unmarshal(b, &conf); err != nil {
		return nil, fmt.Errorf("delegateAddDeviceID: failed to unmarshal inBytes: %v", err)
	}
	conf["deviceID"] = deviceID
	conf["pciBusID"] = deviceID
	return json.Marshal(conf)
}

func addDeviceIDInConfList(b []byte, deviceID string) ([]byte, error) {
	return editConfListPlugins(b, "addDeviceIDInConfList", func(p map[string]interface{}) {
		p["deviceID"] = deviceID
		p["pciBusID"] = deviceID
	})
}

func addCNIArgsInConf(b []byte, cniArgs *map[string]interface{}) ([]byte, error) {
	var conf map[string]interface{}
	if err := json.Unmarshal(b, &conf); err != nil {
		return nil, fmt.Errorf("addCNIArgsInConfig(): failed to unmarshal inBytes: %v", err)
	}
	if err := injectCNIArgs(conf, *cniArgs); err != nil {
		return nil, err
	}
	return json.Marshal(conf)
}

func addCNIArgsInConfList(b []byte, cniArgs *map[string]interface{}) ([]byte, error) {
	var injectErr error
	out, err := editConfListPlugins(b, "addCNIArgsInConfList()", func(p map[string]interface{}) {
		if err := injectCNIArgs(p, *cniArgs); err != nil && injectErr == nil {
			injectErr = err
		}
	})
	if err != nil {
		return nil, err
	}
	return out, injectErr
}

func editConfListPlugins(b []byte, what string, edit func(map[string]interface{})) ([]byte, error) {
	var list map[string]interface{}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: failed to unmarshal inBytes: %v", what, err)
	}
	raw, ok := list["plugins"]
	if !ok {
		return nil, fmt.Errorf("%s: unable to get plugin list", what)
	}
	plugins, ok := raw.([]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: unable to typecast plugin list", what)
	}
	for i, p := range plugins {
		pm, ok := p.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("%s: unable to typecast plugin #%d", what, i)
		}
		edit(pm)
	}
	return json.Marshal(list)
}

// injectCNIArgs merges the selection's cni-args into the config's
// "args": {"cni": {...}}.
func injectCNIArgs(conf map[string]interface{}, cniArgs map[string]interface{}) error {
	argsVal, ok := conf["args"]
	if !ok {
		conf["args"] = map[string]interface{}{"cni": cniArgs}
		return nil
	}
	argsMap, ok := argsVal.(map[string]interface{})
	if !ok {
		return fmt.Errorf("injectCNIArgs: \"args\" is not an object")
	}
	cniVal, ok := argsMap["cni"]
	if !ok {
		argsMap["cni"] = cniArgs
		return nil
	}
	cniMap, ok := cniVal.(map[string]interface{})
	if !ok {
		return fmt.Errorf("injectCNIArgs: \"args.cni\" is not an object")
	}
	for k, v := range cniArgs {
		cniMap[k] = v
	}
	return nil
}

// checkGatewayConfig: when a selection asks for a default route, every
// delegate without one has its default routes filtered (one gateway per
// family at most).
func checkGatewayConfig(delegates []*delegateNetConf) error {
	v4, v6 := 0, 0
	for _, d := range delegates {
		if d.GatewayRequest == nil {
			continue
		}
		for _, gw := range *d.GatewayRequest {
			if gw.To4() != nil {
				v4++
			} else {
				v6++
			}
		}
	}
	if v4 > 1 || v6 > 1 {
		return fmt.Errorf("multus does not support ECMP for default-route")
	}
	for _, d := range delegates {
		d.IsFilterV4Gateway = true
		d.IsFilterV6Gateway = true
		if d.GatewayRequest == nil {
			continue
		}
		for _, gw := range *d.GatewayRequest {
			if gw.To4() != nil {
				d.IsFilterV4Gateway = false
			} else {
				d.IsFilterV6Gateway = false
			}
		}
	}
	return nil
}

/* ------------------------------------------------------------------ */
/* the networks annotation (pkg/k8sclient/k8sclient.go)               */
/* ------------------------------------------------------------------ */

var dnsLabel = regexp.MustCompile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

// parseNetworkObjectName splits "[namespace/]name[@ifname]".
func parseNetworkObjectName(s string) (namespace, name, ifname string, err error) {
	slash := strings.Split(s, "/")
	switch len(slash) {
	case 2:
		namespace = strings.TrimSpace(slash[0])
		name = slash[1]
	case 1:
		name = slash[0]
	default:
		return "", "", "", errorf("parsePodNetworkObjectName: Invalid network object (failed at '/')")
	}
	at := strings.Split(name, "@")
	name = strings.TrimSpace(at[0])
	switch len(at) {
	case 1:
	case 2:
		ifname = strings.TrimSpace(at[1])
	default:
		return "", "", "", errorf("parsePodNetworkObjectName: Invalid network object (failed at '@')")
	}
	for _, item := range []string{namespace, name} {
		if item != "" && !dnsLabel.MatchString(item) {
			return "", "", "", errorf("parsePodNetworkObjectName: Failed to parse: one or more items did not match comma-delimited format (must consist of lower case alphanumeric characters). Must start and end with an alphanumeric character), mismatch @ '%v'", item)
		}
	}
	if ifname != "" && (len(ifname) > syscall.IFNAMSIZ-1 || strings.ContainsAny(ifname, " \t\n\v\f\r/")) {
		return "", "", "", errorf("parsePodNetworkObjectName: Failed to parse interface name: must be less than 15 chars and not contain '/' or spaces. interface name '%s'", ifname)
	}
	return namespace, name, ifname, nil
}

// parsePodNetworkAnnotation parses the networks annotation: a JSON list of
// selections, or a comma-separated list of [namespace/]name[@ifname]. The
// namespace defaults to defaultNamespace.
func parsePodNetworkAnnotation(annot, defaultNamespace string) ([]*networkSelectionElement, error) {
	debugf("parsePodNetworkAnnotation: %s, %s", annot, defaultNamespace)
	if annot == "" {
		return nil, errorf("parsePodNetworkAnnotation: pod annotation does not have \"network\" as key")
	}
	var nets []*networkSelectionElement
	if strings.ContainsAny(annot, "[{\"") {
		if err := json.Unmarshal([]byte(annot), &nets); err != nil {
			return nil, errorf("parsePodNetworkAnnotation: failed to parse pod Network Attachment Selection Annotation JSON format: %v", err)
		}
	} else {
		for _, item := range strings.Split(annot, ",") {
			nsName, name, ifname, err := parseNetworkObjectName(strings.TrimSpace(item))
			if err != nil {
				return nil, errorf("parsePodNetworkAnnotation: %v", err)
			}
			nets = append(nets, &networkSelectionElement{Name: name, Namespace: nsName, InterfaceRequest: ifname})
		}
	}
	for _, n := range nets {
		if n == nil {
			return nil, errorf("parsePodNetworkAnnotation: null network selection element")
		}
		if n.Namespace == "" {
			n.Namespace = defaultNamespace
		}
		if n.MacRequest != "" {
			if _, err := net.ParseMAC(n.MacRequest); err != nil {
				return nil, errorf("parsePodNetworkAnnotation: failed to mac: %v", err)
			}
		}
		if n.InfinibandGUIDRequest != "" {
			if _, err := net.ParseMAC(n.InfinibandGUIDRequest); err != nil {
				return nil, errorf("parsePodNetworkAnnotation: failed to validate infiniband GUID: %v", err)
			}
		}
		for _, ip := range n.IPRequest {
			if err := validateIP(ip); err != nil {
				return nil, errorf("%v", err)
			}
		}
		if n.DeprecatedInterfaceRequest != "" && n.InterfaceRequest == "" {
			n.InterfaceRequest = n.DeprecatedInterfaceRequest
		}
	}
	return nets, nil
}

func validateIP(ip string) error {
	if strings.Contains(ip, "/") {
		if _, _, err := net.ParseCIDR(ip); err != nil {
			return fmt.Errorf("failed to parse CIDR %q: %v", ip, err)
		}
	} else if net.ParseIP(ip) == nil {
		return fmt.Errorf("failed to parse IP address %q", ip)
	}
	return nil
}

// errNoK8sNetwork: the pod has no networks annotation.
type errNoK8sNetwork struct{ msg string }

func (e *errNoK8sNetwork) Error() string { return e.msg }

func getPodNetwork(pod *corev1.Pod) ([]*networkSelectionElement, error) {
	annot := pod.Annotations[networkAttachmentAnnot]
	if annot == "" {
		return nil, &errNoK8sNetwork{"no kubernetes network found"}
	}
	return parsePodNetworkAnnotation(annot, pod.Namespace)
}

/* ------------------------------------------------------------------ */
/* the API server (pkg/k8sclient)                                     */
/* ------------------------------------------------------------------ */

type kubeClient struct {
	core kubernetes.Interface
	dyn  dynamic.Interface
}

// newKubeClient: nil without a kubeconfig outside a cluster (Multus then
// runs the delegates without the API).
func newKubeClient(kubeconfig string) (*kubeClient, error) {
	var cfg *rest.Config
	var err error
	switch {
	case kubeconfig != "":
		if cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
			return nil, errorf("GetK8sClient: failed to get context for the kubeconfig %v: %v", kubeconfig, err)
		}
	case os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != "":
		if cfg, err = rest.InClusterConfig(); err != nil {
			return nil, errorf("GetK8sClient: failed to get context for in-cluster kube config: %v", err)
		}
	default:
		return nil, nil
	}
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.Timeout = time.Minute
	cfg.QPS = 50
	cfg.Burst = 50
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &kubeClient{core: core, dyn: dyn}, nil
}

// nad is what Multus reads of a NetworkAttachmentDefinition.
type nad struct {
	Name        string
	Namespace   string
	Annotations map[string]string
	Config      string
}

func (c *kubeClient) getNAD(namespace, name string) (*nad, error) {
	u, err := c.dyn.Resource(nadGVR).Namespace(namespace).Get(context.TODO(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return nadFromUnstructured(u)
}

func nadFromUnstructured(u *unstructured.Unstructured) (*nad, error) {
	config, _, err := unstructured.NestedString(u.Object, "spec", "config")
	if err != nil {
		return nil, fmt.Errorf("network-attachment-definition %s/%s: spec.config: %v", u.GetNamespace(), u.GetName(), err)
	}
	return &nad{Name: u.GetName(), Namespace: u.GetNamespace(), Annotations: u.GetAnnotations(), Config: config}, nil
}

// event records a pod event as Multus's event recorder does (component
// "multus"), here synchronously and best effort.
func (c *kubeClient) event(pod *corev1.Pod, eventType, reason, format string, a ...interface{}) {
	if c == nil || pod == nil {
		return
	}
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%v.%x", pod.Name, now.UnixNano()),
			Namespace: pod.Namespace,
		},
		InvolvedObject: corev1.ObjectReference{
			Kind:            "Pod",
			APIVersion:      "v1",
			Namespace:       pod.Namespace,
			Name:            pod.Name,
			UID:             pod.UID,
			ResourceVersion: pod.ResourceVersion,
		},
		Reason:              reason,
		Message:             fmt.Sprintf(format, a...),
		Source:              corev1.EventSource{Component: "multus"},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		Type:                eventType,
		ReportingController: "multus",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := c.core.CoreV1().Events(pod.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		debugf("event %s for pod %s/%s: %v", reason, pod.Namespace, pod.Name, err)
	}
}

// isStaticPod: a mirror pod's UID differs from the kubelet's.
func isStaticPod(pod *corev1.Pod) bool {
	if src, ok := pod.Annotations[configSourceAnnot]; ok {
		return src != "api"
	}
	return false
}

func isRetriable(err error) bool {
	return apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		k8snet.IsConnectionReset(err) || k8snet.IsConnectionRefused(err)
}

// getPod gets the pod of CNI_ARGS: 250 ms a try, retrying only on
// unavailable / internal / reset / refused for 2.5 s, then one more try.
// A different UID fails ADD (not a static pod) and means "no pod" on DEL.
func getPod(kc *kubeClient, k *k8sArgs, isDel bool) (*corev1.Pod, error) {
	if kc == nil {
		return nil, nil
	}
	namespace, name, uid := string(k.K8S_POD_NAMESPACE), string(k.K8S_POD_NAME), string(k.K8S_POD_UID)
	start := time.Now()
	defer func() { debugf("GetPod for [%s/%s] took %v", namespace, name, time.Since(start)) }()

	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), podPollInterval, podPollTimeout, true,
		func(context.Context) (bool, error) {
			ctx, cancel := context.WithTimeout(context.Background(), podPollInterval)
			defer cancel()
			p, err := kc.core.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
			if isRetriable(err) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			pod = p
			return true, nil
		})
	if err != nil {
		if apierrors.IsNotFound(err) {
			if !isDel {
				verbosef("Warning: GetPod for [%s/%s] resulted in pod not found during CNI ADD (pod may have already been deleted): %v", namespace, name, err)
			}
			return nil, errPodNotFound
		}
		ctx, cancel := context.WithTimeout(context.Background(), podPollInterval)
		defer cancel()
		if pod, err = kc.core.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				verbosef("Warning: On live query retry, [%s/%s] pod not found during CNI ADD (pod may have already been deleted): %v", namespace, name, err)
				return nil, errPodNotFound
			}
			return nil, cmdErr(k, "error waiting for pod: %v", err)
		}
	}
	if uid != "" && string(pod.UID) != uid && !isStaticPod(pod) {
		msg := fmt.Sprintf("expected pod UID %q but got %q from Kube API", uid, pod.UID)
		if isDel {
			verbosef("warning: %s", msg)
			return nil, nil
		}
		return nil, cmdErr(k, "%s", msg)
	}
	return pod, nil
}

// setNetworkStatus writes the network-status annotation through the pod's
// status subresource, retrying on conflicts.
func setNetworkStatus(kc *kubeClient, k *k8sArgs, statuses []networkStatus) error {
	namespace, name, uid := string(k.K8S_POD_NAMESPACE), string(k.K8S_POD_NAME), string(k.K8S_POD_UID)
	pods := kc.core.CoreV1().Pods(namespace)
	pod, err := pods.Get(context.TODO(), name, metav1.GetOptions{})
	if err != nil {
		return errorf("SetPodNetworkStatusAnnotation: failed to query the pod %v in out of cluster comm: %v", name, err)
	}
	if uid != "" && string(pod.UID) != uid && !isStaticPod(pod) {
		return errorf("SetNetworkStatus: expected pod %s/%s UID %q but got %q from Kube API", namespace, name, uid, pod.UID)
	}
	if statuses == nil {
		return nil
	}
	value, err := networkStatusAnnotation(statuses)
	if err != nil {
		return errorf("SetNetworkStatus: error with Marshal Indent: %v", err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(context.TODO(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[networkStatusAnnot] = value
		_, err = pods.UpdateStatus(context.TODO(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return errorf("SetPodNetworkStatusAnnotation: failed to update the pod %v in out of cluster comm: SetNetworkStatus: failed to update the pod %s in out of cluster comm: status update failed for pod %s/%s: %v", name, name, namespace, name, err)
	}
	return nil
}

// networkStatusAnnotation: the statuses, each indented, in a JSON list.
func networkStatusAnnotation(statuses []networkStatus) (string, error) {
	parts := make([]string, 0, len(statuses))
	for _, s := range statuses {
		b, err := json.MarshalIndent(s, "", "    ")
		if err != nil {
			return "", err
		}
		parts = append(parts, string(b))
	}
	return "[" + strings.Join(parts, ",") + "]", nil
}

/* ------------------------------------------------------------------ */
/* the pod's devices (pkg/kubeletclient, pkg/checkpoint)              */
/* ------------------------------------------------------------------ */

// getPodResourceMap: the pod's device IDs by resource name, sorted, from
// the kubelet's PodResources API, or its device-plugin checkpoint when
// the socket is absent.
func getPodResourceMap(pod *corev1.Pod, socket string) (map[string]*resourceInfo, error) {
	if socket == "" {
		socket = defaultPodResourcesSocket
	}
	if _, err := os.Stat(socket); err != nil {
		debugf("hasKubeletAPIEndpoint: error looking up kubelet resource api socket file: %q", err)
		return checkpointResourceMap(pod, deviceCheckpointFile)
	}
	debugf("GetResourceClient: using Kubelet resource API endpoint %s", socket)
	conn, err := grpc.NewClient("unix://"+socket,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(podResourcesMaxMsgSize)))
	if err != nil {
		return nil, errorf("getKubeletClient: error getting grpc client: error dialing socket %s: %v", socket, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), kubeletTimeout)
	defer cancel()
	resp, err := podresourcesapi.NewPodResourcesListerClient(conn).List(ctx, &podresourcesapi.ListPodResourcesRequest{})
	if err != nil {
		return nil, errorf("getKubeletClient: error getting pod resources from client: getPodResources: failed to list pod resources: %v", err)
	}
	return podResourcesMap(pod, resp.GetPodResources())
}

func podResourcesMap(pod *corev1.Pod, resources []*podresourcesapi.PodResources) (map[string]*resourceInfo, error) {
	if pod.Name == "" || pod.Namespace == "" {
		return nil, errorf("GetPodResourceMap: Pod name or namespace cannot be empty")
	}
	m := map[string]*resourceInfo{}
	for _, pr := range resources {
		if pr.GetName() != pod.Name || pr.GetNamespace() != pod.Namespace {
			continue
		}
		for _, c := range pr.GetContainers() {
			for _, dev := range c.GetDevices() {
				ri, ok := m[dev.GetResourceName()]
				if !ok {
					ri = &resourceInfo{}
					m[dev.GetResourceName()] = ri
				}
				ri.DeviceIDs = append(ri.DeviceIDs, dev.GetDeviceIds()...)
			}
		}
	}
	sortDeviceIDs(m)
	return m, nil
}

func sortDeviceIDs(m map[string]*resourceInfo) {
	for _, ri := range m {
		sort.Strings(ri.DeviceIDs)
	}
}

// checkpointResourceMap reads the kubelet's device manager checkpoint
// (entries by pod UID).
func checkpointResourceMap(pod *corev1.Pod, path string) (map[string]*resourceInfo, error) {
	var cp struct {
		Data struct {
			PodDeviceEntries []struct {
				PodUID        string
				ContainerName string
				ResourceName  string
				DeviceIDs     map[int64][]string
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf("getPodEntries: error reading file %s\n%v\n", path, err)
	}
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, errorf("getPodEntries: error unmarshalling raw bytes %v", err)
	}
	if pod.UID == "" {
		return nil, errorf("GetPodResourceMap: invalid Pod cannot be empty")
	}
	m := map[string]*resourceInfo{}
	for _, e := range cp.Data.PodDeviceEntries {
		if e.PodUID != string(pod.UID) {
			continue
		}
		ri, ok := m[e.ResourceName]
		if !ok {
			ri = &resourceInfo{}
			m[e.ResourceName] = ri
		}
		for _, ids := range e.DeviceIDs {
			ri.DeviceIDs = append(ri.DeviceIDs, ids...)
		}
	}
	sortDeviceIDs(m)
	return m, nil
}

// nextDeviceID gives the resource's next device not yet given to an
// earlier network of the pod.
func nextDeviceID(m map[string]*resourceInfo, resourceName string) string {
	ri, ok := m[resourceName]
	if !ok || len(ri.DeviceIDs) <= ri.Index {
		return ""
	}
	id := ri.DeviceIDs[ri.Index]
	ri.Index++
	return id
}

/* ------------------------------------------------------------------ */
/* CNI configs from files (the NAD client's pkg/utils/cniconfig.go)   */
/* ------------------------------------------------------------------ */

// cniConfigFromFile: the config in confDir whose name is name (any when
// name is empty), .conf, .json or .conflist, in file name order.
func cniConfigFromFile(name, confDir string) ([]byte, error) {
	files, err := libcni.ConfFiles(confDir, []string{".conf", ".json", ".conflist"})
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("No networks found in %s", confDir)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".conflist") {
			list, err := libcni.ConfListFromFile(f)
			if err != nil {
				return nil, fmt.Errorf("Error loading CNI conflist file %s: %v", f, err)
			}
			if list.Name == name || name == "" {
				return list.Bytes, nil
			}
			continue
		}
		conf, err := libcni.ConfFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("Error loading CNI config file %s: %v", f, err)
		}
		if conf.Network.Name == name || name == "" {
			if conf.Network.Type == "" {
				return nil, fmt.Errorf("Error loading CNI config file %s: no 'type'; perhaps this is a .conflist?", f)
			}
			return conf.Bytes, nil
		}
	}
	return nil, fmt.Errorf("no network available in the name %s in cni dir %s", name, confDir)
}

// cniConfigOfNAD: spec.config (its "name" the NAD's when missing), or
// without one the file of confDir named as the NAD.
func cniConfigOfNAD(n *nad, confDir string) ([]byte, error) {
	if n.Config == "" {
		b, err := cniConfigFromFile(n.Name, confDir)
		if err != nil {
			return nil, fmt.Errorf("GetCNIConfig: err in GetCNIConfigFromFile: %v", err)
		}
		return b, nil
	}
	b := []byte(n.Config)
	var raw map[string]interface{}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("GetCNIConfig: err in getCNIConfigFromSpec: failed to unmarshal Spec.Config: %v", err)
	}
	if v, ok := raw["name"]; !ok || v == "" {
		raw["name"] = n.Name
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return nil, fmt.Errorf("GetCNIConfig: err in getCNIConfigFromSpec: failed to re-marshal Spec.Config: %v", err)
		}
	}
	return b, nil
}

var cniNetworkName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// loadSubdirectoryChain parses a conflist and appends the plugins of
// <dir>/<name>/*.conf unless it has loadOnlyInlinedPlugins.
func loadSubdirectoryChain(b []byte, dir string) (*libcni.NetworkConfigList, error) {
	list, err := libcni.NetworkConfFromBytes(b)
	if err != nil {
		return nil, fmt.Errorf("error loading network config from bytes: %v", err)
	}
	if !list.LoadOnlyInlinedPlugins && dir != "" {
		if !cniNetworkName.MatchString(list.Name) {
			return nil, fmt.Errorf("invalid network config name: %s", list.Name)
		}
		more, err := libcni.NetworkPluginConfsFromFiles(dir, list.Name)
		if err != nil {
			return nil, fmt.Errorf("error loading plugin configs: %v", err)
		}
		list.Plugins = append(list.Plugins, more...)
	}
	if len(list.Plugins) == 0 {
		return nil, fmt.Errorf("no plugin configs found")
	}
	return list, nil
}

func loadChainedPluginsFromFile(path string) (*libcni.NetworkConfigList, error) {
	clean := filepath.Clean(path)
	fi, err := os.Stat(clean)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("CNI configuration path is not a regular file")
	}
	b, err := os.ReadFile(clean)
	if err != nil {
		return nil, fmt.Errorf("error reading %s: %w", path, err)
	}
	return loadSubdirectoryChain(b, filepath.Dir(path))
}

/* ------------------------------------------------------------------ */
/* the pod's delegates (pkg/k8sclient/k8sclient.go)                   */
/* ------------------------------------------------------------------ */

// kubernetesDelegate: the delegate of a selected NAD, with the pod's next
// device of the NAD's resource when it names one.
func kubernetesDelegate(kc *kubeClient, n *netConf, sel *networkSelectionElement, pod *corev1.Pod,
	resourceMap map[string]*resourceInfo) (*delegateNetConf, map[string]*resourceInfo, error) {
	debugf("getKubernetesDelegate: %v, %s, %v", sel, n.ConfDir, resourceMap)
	def, err := kc.getNAD(sel.Namespace, sel.Name)
	if err != nil {
		msg := fmt.Sprintf("cannot find a network-attachment-definition (%s) in namespace (%s): %v", sel.Name, sel.Namespace, err)
		kc.event(pod, corev1.EventTypeWarning, "NoNetworkFound", "%s", msg)
		return nil, resourceMap, errorf("getKubernetesDelegate: %s", msg)
	}

	deviceID := ""
	resourceName, ok := def.Annotations[resourceNameAnnot]
	if ok && pod != nil && pod.Name != "" && pod.Namespace != "" {
		debugf("getKubernetesDelegate: found resourceName annotation : %s", resourceName)
		if resourceMap == nil {
			if resourceMap, err = getPodResourceMap(pod, n.KubeletPodResourcesSocket); err != nil {
				return nil, nil, errorf("getKubernetesDelegate: failed to get resourceMap from ResourceClient: %v", err)
			}
			debugf("getKubernetesDelegate: resourceMap instance: %+v", resourceMap)
		}
		if deviceID = nextDeviceID(resourceMap, resourceName); deviceID != "" {
			debugf("getKubernetesDelegate: podName: %s deviceID: %s", pod.Name, deviceID)
		}
	}

	b, err := cniConfigOfNAD(def, n.ConfDir)
	if err != nil {
		return nil, resourceMap, err
	}
	d, err := loadDelegateNetConf(b, sel, deviceID, resourceName)
	if err != nil {
		return nil, resourceMap, err
	}
	return d, resourceMap, nil
}

// netDelegate loads the cluster network (or a default network): a name
// (a NAD of multusNamespace, else a config of confDir of that name), a
// directory (its first config) or a file.
func netDelegate(kc *kubeClient, n *netConf, pod *corev1.Pod, netname string,
	resourceMap map[string]*resourceInfo) (*delegateNetConf, map[string]*resourceInfo, error) {
	debugf("getNetDelegate: %v, %s, %s", netname, n.ConfDir, n.MultusNamespace)
	if !strings.Contains(netname, "/") {
		sel := &networkSelectionElement{Name: netname, Namespace: n.MultusNamespace}
		d, rm, err := kubernetesDelegate(kc, n, sel, pod, resourceMap)
		if err == nil {
			return d, rm, nil
		}
		resourceMap = rm
		if b, err := cniConfigFromFile(netname, n.ConfDir); err == nil {
			d, err := loadDelegateNetConf(b, nil, "", "")
			return d, resourceMap, err
		}
		return nil, resourceMap, errorf("getNetDelegate: cannot find network: %v", netname)
	}
	fi, err := os.Stat(netname)
	if err != nil {
		return nil, resourceMap, err
	}
	if fi.IsDir() {
		files, err := libcni.ConfFiles(netname, []string{".conf", ".conflist"})
		if err != nil {
			return nil, resourceMap, err
		}
		if len(files) == 0 {
			return nil, resourceMap, errorf("getNetDelegate: cannot find network: %v", netname)
		}
		b, err := cniConfigFromFile("", netname)
		if err != nil {
			return nil, resourceMap, err
		}
		d, err := loadDelegateNetConf(b, nil, "", "")
		return d, resourceMap, err
	}
	if strings.HasSuffix(netname, ".conflist") {
		list, err := loadChainedPluginsFromFile(netname)
		if err != nil {
			return nil, resourceMap, errorf("error loading CNI conflist file %s: %v", netname, err)
		}
		d, err := loadDelegateFromConfList(list)
		return d, resourceMap, err
	}
	conf, err := libcni.ConfFromFile(netname)
	if err != nil {
		return nil, resourceMap, errorf("error loading CNI config file %s: %v", netname, err)
	}
	if conf.Network.Type == "" {
		return nil, resourceMap, errorf("error loading CNI config file %s: no 'type'; perhaps this is supposed to be a .conflist?", netname)
	}
	d, err := loadDelegateNetConf(conf.Bytes, nil, "", "")
	return d, resourceMap, err
}

func inList(s string, list []string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// getDefaultNetworks puts the cluster network (the master plugin) and the
// default networks first in the delegates.
func getDefaultNetworks(pod *corev1.Pod, n *netConf, kc *kubeClient, resourceMap map[string]*resourceInfo) (map[string]*resourceInfo, error) {
	if kc == nil {
		if len(n.delegates) == 0 {
			return resourceMap, errorf("GetDefaultNetworks: must have either Kubernetes config or delegates")
		}
		return resourceMap, nil
	}
	d, resourceMap, err := netDelegate(kc, n, pod, n.ClusterNetwork, resourceMap)
	if err != nil {
		return resourceMap, errorf("GetDefaultNetworks: failed to get clusterNetwork %s in namespace %s: %v", n.ClusterNetwork, n.MultusNamespace, err)
	}
	d.MasterPlugin = true
	delegates := []*delegateNetConf{d}
	if pod != nil && !inList(pod.Namespace, n.SystemNamespaces) {
		for _, name := range n.DefaultNetworks {
			var dn *delegateNetConf
			if dn, resourceMap, err = netDelegate(kc, n, pod, name, resourceMap); err != nil {
				return resourceMap, err
			}
			delegates = append(delegates, dn)
		}
	}
	n.delegates = append(n.delegates, delegates...)
	return resourceMap, nil
}

// tryLoadPodDelegates: the pod's default-network annotation replaces the
// cluster network; the networks annotation appends its NADs' delegates.
func tryLoadPodDelegates(pod *corev1.Pod, n *netConf, kc *kubeClient, resourceMap map[string]*resourceInfo) (int, *kubeClient, error) {
	if kc == nil {
		if len(n.delegates) == 0 {
			return 0, nil, errorf("TryLoadPodDelegates: must have either Kubernetes config or delegates")
		}
		return 0, nil, nil
	}
	if annot, ok := pod.Annotations[defaultNetAnnot]; ok {
		nets, err := parsePodNetworkAnnotation(annot, n.MultusNamespace)
		if err != nil {
			return 0, nil, errorf("TryLoadPodDelegates: error in loading K8s cluster default network from pod annotation: tryLoadK8sPodDefaultNetwork: failed to parse CRD object: %v", err)
		}
		if len(nets) > 1 {
			return 0, nil, errorf("TryLoadPodDelegates: error in loading K8s cluster default network from pod annotation: tryLoadK8sPodDefaultNetwork: more than one default network is specified: %s", annot)
		}
		d, _, err := kubernetesDelegate(kc, n, nets[0], pod, nil)
		if err != nil {
			return 0, nil, errorf("TryLoadPodDelegates: error in loading K8s cluster default network from pod annotation: tryLoadK8sPodDefaultNetwork: failed getting the delegate: %v", err)
		}
		d.MasterPlugin = true
		if len(n.delegates) == 0 {
			n.delegates = []*delegateNetConf{d}
		} else {
			n.delegates[0] = d
		}
	}

	nets, err := getPodNetwork(pod)
	if err != nil {
		var none *errNoK8sNetwork
		if errors.As(err, &none) {
			return 0, kc, nil
		}
		return 0, kc, err
	}
	var added []*delegateNetConf
	for _, sel := range nets {
		if n.NamespaceIsolation && pod.Namespace != sel.Namespace && !inList(sel.Namespace, n.nonIsolatedNamespaces) {
			return 0, nil, errorf("TryLoadPodDelegates: error in getting k8s network for pod: GetNetworkDelegates: namespace isolation enabled, annotation violates permission, pod is in namespace %v but refers to target namespace %v", pod.Namespace, sel.Namespace)
		}
		var d *delegateNetConf
		if d, resourceMap, err = kubernetesDelegate(kc, n, sel, pod, resourceMap); err != nil {
			return 0, nil, errorf("TryLoadPodDelegates: error in getting k8s network for pod: GetNetworkDelegates: failed getting the delegate: %v", err)
		}
		added = append(added, d)
	}
	n.delegates = append(n.delegates, added...)
	for _, d := range n.delegates {
		if d.GatewayRequest != nil {
			if err := checkGatewayConfig(n.delegates); err != nil {
				return 0, nil, err
			}
			break
		}
	}
	return len(added), kc, nil
}

/* ------------------------------------------------------------------ */
/* runtime conf (pkg/types/conf.go CreateCNIRuntimeConf)              */
/* ------------------------------------------------------------------ */

// getIfname: the requested name, CNI_IFNAME for the cluster network, else
// net<position>.
func getIfname(d *delegateNetConf, argIfname string, idx int) string {
	if d.IfnameRequest != "" {
		return d.IfnameRequest
	}
	if d.MasterPlugin {
		return argIfname
	}
	return fmt.Sprintf("net%d", idx)
}

func devInfoCNIPath(name string) string {
	return filepath.Join(devInfoBaseDir, "cni", strings.ReplaceAll(name, "/", "-"))
}

func devInfoDPPath(resourceName, deviceID string) string {
	return filepath.Join(devInfoBaseDir, "dp", fmt.Sprintf("%s-%s-device.json",
		strings.ReplaceAll(resourceName, "/", "-"), strings.ReplaceAll(deviceID, "/", "-")))
}

// createRuntimeConf: the delegate's libcni RuntimeConf. Args are the K8S_*
// values, then CNI_ARGS's (a key already set is appended again); the
// capability args are the node conf's runtimeConfig and, for a network of
// the pod, what its selection asked for and its deviceID (with a
// CNIDeviceInfoFile path). It returns that path too.
func createRuntimeConf(args *skel.CmdArgs, k *k8sArgs, ifName string, rc *runtimeConfig, d *delegateNetConf) (*libcni.RuntimeConf, string) {
	merged := runtimeConfig{}
	if rc != nil {
		merged = *rc
	}
	if !d.MasterPlugin {
		if d.PortMappingsRequest != nil {
			merged.PortMaps = d.PortMappingsRequest
		}
		if d.BandwidthRequest != nil {
			merged.Bandwidth = d.BandwidthRequest
		}
		if d.IPRequest != nil {
			merged.IPs = d.IPRequest
		}
		if d.MacRequest != "" {
			merged.Mac = d.MacRequest
		}
		if d.InfinibandGUIDRequest != "" {
			merged.InfinibandGUID = d.InfinibandGUIDRequest
		}
		if d.DeviceID != "" {
			merged.DeviceID = d.DeviceID
		}
	}
	if merged.DeviceID != "" {
		merged.CNIDeviceInfoFile = devInfoCNIPath(fmt.Sprintf("%s-%s_%s", d.Name, args.ContainerID, ifName))
	}

	rt := &libcni.RuntimeConf{
		ContainerID: args.ContainerID,
		NetNS:       args.Netns,
		IfName:      ifName,
		Args: [][2]string{
			{"IgnoreUnknown", "true"},
			{"K8S_POD_NAMESPACE", string(k.K8S_POD_NAMESPACE)},
			{"K8S_POD_NAME", string(k.K8S_POD_NAME)},
			{"K8S_POD_INFRA_CONTAINER_ID", string(k.K8S_POD_INFRA_CONTAINER_ID)},
			{"K8S_POD_UID", string(k.K8S_POD_UID)},
		},
	}
	if args.Args != "" {
		for _, kv := range strings.Split(args.Args, ";") {
			parts := strings.SplitN(kv, "=", 2)
			if len(parts) != 2 {
				errorf("CreateCNIRuntimeConf: CNI_ARGS %s %s %d is not recognized as CNI arg, skipped", kv, parts, len(parts))
				continue
			}
			filled := false
			for i := range rt.Args {
				if rt.Args[i][0] == parts[0] && rt.Args[i][1] == "" && parts[1] != "" {
					rt.Args[i][1] = parts[1]
					filled = true
					break
				}
			}
			if !filled {
				rt.Args = append(rt.Args, [2]string{parts[0], parts[1]})
			}
		}
	}

	caps := map[string]interface{}{}
	if len(merged.PortMaps) != 0 {
		caps["portMappings"] = merged.PortMaps
	}
	if merged.Bandwidth != nil {
		caps["bandwidth"] = merged.Bandwidth
	}
	if len(merged.IPs) != 0 {
		caps["ips"] = merged.IPs
	}
	if merged.Mac != "" {
		caps["mac"] = merged.Mac
	}
	if merged.InfinibandGUID != "" {
		caps["infinibandGUID"] = merged.InfinibandGUID
	}
	if merged.DeviceID != "" {
		caps["deviceID"] = merged.DeviceID
	}
	if merged.CNIDeviceInfoFile != "" {
		caps["CNIDeviceInfoFile"] = merged.CNIDeviceInfoFile
	}
	rt.CapabilityArgs = caps
	return rt, merged.CNIDeviceInfoFile
}

/* ------------------------------------------------------------------ */
/* running the delegates (pkg/multus/multus.go)                       */
/* ------------------------------------------------------------------ */

func cniConfig(n *netConf) *libcni.CNIConfig {
	dirs := append([]string{n.BinDir}, filepath.SplitList(os.Getenv("CNI_PATH"))...)
	return libcni.NewCNIConfigWithCacheDir(dirs, n.CNIDir, nil)
}

// validateIfName: the interface must not exist yet in the pod's netns.
func validateIfName(netnsPath, ifName string) error {
	podNS, err := ns.GetNS(netnsPath)
	if err != nil {
		return errorf("validateIfName: no net namespace %s found: %v", netnsPath, err)
	}
	defer podNS.Close()
	return podNS.Do(func(ns.NetNS) error {
		_, err := netlink.LinkByName(ifName)
		if err == nil {
			return errorf("validateIfName: interface name %s already exists", ifName)
		}
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil
		}
		return err
	})
}

func delegateAdd(kc *kubeClient, n *netConf, pod *corev1.Pod, d *delegateNetConf, rt *libcni.RuntimeConf) (cnitypes.Result, error) {
	debugf("DelegateAdd: %v, %v", d.Name, rt)
	if err := validateIfName(rt.NetNS, rt.IfName); err != nil {
		return nil, errorf("DelegateAdd: cannot set %q interface name to %q: %v", d.Conf.Type, rt.IfName, err)
	}
	// the old MAC= / IP= CNI_ARGS, still passed besides the capabilities
	if d.MacRequest != "" {
		if _, err := net.ParseMAC(d.MacRequest); err != nil {
			return nil, errorf("DelegateAdd: failed to parse mac address %q", d.MacRequest)
		}
		rt.Args = append(rt.Args, [2]string{"MAC", d.MacRequest})
	}
	if d.IPRequest != nil {
		for _, ip := range d.IPRequest {
			if validateIP(ip) != nil {
				return nil, errorf("DelegateAdd: failed to parse IP address %q", ip)
			}
		}
		rt.Args = append(rt.Args, [2]string{"IP", strings.Join(d.IPRequest, ",")})
	}

	c := cniConfig(n)
	var result cnitypes.Result
	var err error
	if d.ConfListPlugin {
		list, perr := libcni.NetworkConfFromBytes(d.Bytes)
		if perr != nil {
			return nil, errorf("conflistAdd: error converting the raw bytes into a conflist: %v", perr)
		}
		result, err = c.AddNetworkList(context.Background(), list, rt)
	} else {
		conf, perr := libcni.ConfFromBytes(d.Bytes)
		if perr != nil {
			return nil, errorf("error in converting the raw bytes to conf: %v", perr)
		}
		result, err = c.AddNetwork(context.Background(), conf, rt)
	}
	if err != nil {
		return nil, err
	}
	if logger.level >= verboseLevel {
		data, _ := json.Marshal(result)
		uid := "unknownUID"
		if pod != nil {
			uid = string(pod.UID)
		}
		verbosef("Add: %s:%s:%s:%s(%s):%s %s", rt.Args[1][1], rt.Args[2][1], uid, d.Name, d.netName(), rt.IfName, string(data))
	}

	res, cerr := cni100.NewResultFromResult(result)
	if cerr != nil {
		errorf("DelegateAdd: error converting result: %v", cerr)
		return result, nil
	}
	if pod != nil {
		if res.Interfaces != nil || res.IPs != nil {
			ips := []string{}
			for _, ip := range res.IPs {
				ips = append(ips, ip.Address.String())
			}
			if d.Name != "" {
				kc.event(pod, corev1.EventTypeNormal, "AddedInterface", "Add %s %v from %s", rt.IfName, ips, d.Name)
			} else {
				kc.event(pod, corev1.EventTypeNormal, "AddedInterface", "Add %s %v", rt.IfName, ips)
			}
		}
	} else {
		errorf("DelegateAdd: pod nil pointer: namespace: %s, name: %s, container id: %s, pod: %v", rt.Args[1][1], rt.Args[2][1], rt.Args[3][1], pod)
	}
	return result, nil
}

func delegateDel(n *netConf, d *delegateNetConf, rt *libcni.RuntimeConf) error {
	verbosef("Del: %s:%s:%s:%s %s", rt.Args[1][1], rt.Args[2][1], d.netName(), rt.IfName, string(d.Bytes))
	c := cniConfig(n)
	if d.ConfListPlugin {
		list, err := libcni.NetworkConfFromBytes(d.Bytes)
		if err != nil {
			return errorf("DelegateDel: error invoking ConflistDel - %q: conflistDel: error converting the raw bytes into a conflist: %v", d.ConfList.Name, err)
		}
		if err := c.DelNetworkList(context.Background(), list, rt); err != nil {
			return errorf("DelegateDel: error invoking ConflistDel - %q: conflistDel: error in getting result from DelNetworkList: %v", d.ConfList.Name, err)
		}
		return nil
	}
	conf, err := libcni.ConfFromBytes(d.Bytes)
	if err != nil {
		return errorf("DelegateDel: error invoking DelegateDel - %q: error in converting the raw bytes to conf: %v", d.Conf.Type, err)
	}
	if err := c.DelNetwork(context.Background(), conf, rt); err != nil {
		return errorf("DelegateDel: error invoking DelegateDel - %q: error in getting result from DelNetwork: %v", d.Conf.Type, err)
	}
	return nil
}

func delegateCheck(n *netConf, d *delegateNetConf, rt *libcni.RuntimeConf) error {
	c := cniConfig(n)
	if d.ConfListPlugin {
		list, err := libcni.NetworkConfFromBytes(d.Bytes)
		if err == nil {
			err = c.CheckNetworkList(context.Background(), list, rt)
		}
		if err != nil {
			return errorf("DelegateCheck: error invoking ConflistCheck - %q: %v", d.ConfList.Name, err)
		}
		return nil
	}
	conf, err := libcni.ConfFromBytes(d.Bytes)
	if err == nil {
		err = c.CheckNetwork(context.Background(), conf, rt)
	}
	if err != nil {
		return errorf("DelegateCheck: error invoking DelegateCheck - %q: %v", d.Conf.Type, err)
	}
	return nil
}

// delPlugins: DEL of delegates[lastIdx..0], every one tried, the errors
// joined; the device-info files removed.
func delPlugins(n *netConf, args *skel.CmdArgs, k *k8sArgs, delegates []*delegateNetConf, lastIdx int) error {
	var errs []string
	for idx := lastIdx; idx >= 0; idx-- {
		ifName := getIfname(delegates[idx], args.IfName, idx)
		rt, devInfoPath := createRuntimeConf(args, k, ifName, n.RuntimeConfig, delegates[idx])
		if err := delegateDel(n, delegates[idx], rt); err != nil {
			errs = append(errs, err.Error())
		}
		if devInfoPath != "" {
			if err := os.Remove(devInfoPath); err != nil && !os.IsNotExist(err) {
				debugf("delPlugins: CleanDeviceInfoForCNI returned an error - err=%v", err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("errors: %s", strings.Join(errs, " / "))
	}
	return nil
}

func cmdErr(k *k8sArgs, format string, a ...interface{}) error {
	prefix := "Multus: "
	if k != nil {
		prefix += fmt.Sprintf("[%s/%s/%s]: ", k.K8S_POD_NAMESPACE, k.K8S_POD_NAME, k.K8S_POD_UID)
	}
	return errorf(prefix+format, a...)
}

func cmdPluginErr(k *k8sArgs, confName string, format string, a ...interface{}) error {
	msg := ""
	if k != nil {
		msg = fmt.Sprintf("[%s/%s/%s:%s]: ", k.K8S_POD_NAMESPACE, k.K8S_POD_NAME, k.K8S_POD_UID, confName)
	}
	return errorf(msg+format, a...)
}

// waitReadinessIndicator waits (1 s polls, 45 s) for the file.
func waitReadinessIndicator(path string) error {
	abs, err := filepath.Abs(filepath.Clean(path))
	if err != nil {
		return fmt.Errorf("failed to get absolute path of readinessIndicatorFile: %v", err)
	}
	return wait.PollUntilContextTimeout(context.Background(), time.Second, 45*time.Second, true,
		func(context.Context) (bool, error) {
			_, err := os.Stat(abs)
			return err == nil, nil
		})
}

/* ------------------------------------------------------------------ */
/* the delegates' cache under cniDir (saveDelegates)                  */
/* ------------------------------------------------------------------ */

func saveDelegates(containerID, dir string, delegates []*delegateNetConf) error {
	b, err := json.Marshal(delegates)
	if err != nil {
		return errorf("saveDelegates: error serializing delegate netconf: %v", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errorf("saveDelegates: error in saving the delegates : saveScratchNetConf: failed to create the multus data directory(%q): %v", dir, err)
	}
	path := filepath.Join(dir, containerID)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return errorf("saveDelegates: error in saving the delegates : saveScratchNetConf: failed to write container data in the path(%q): %v", path, err)
	}
	return nil
}

func loadCachedDelegates(b []byte) ([]*delegateNetConf, error) {
	var delegates []*delegateNetConf
	if err := json.Unmarshal(b, &delegates); err != nil {
		return nil, err
	}
	if len(delegates) == 0 {
		return nil, fmt.Errorf("no delegates in the cache")
	}
	for _, d := range delegates {
		if len(d.ConfList.Plugins) != 0 {
			d.ConfListPlugin = true
		}
	}
	delegates[0].MasterPlugin = true
	return delegates, nil
}

// setConfListVersion gives a conflist without cniVersion the node conf's
// (DEL only, as upstream).
func setConfListVersion(b []byte, v string) ([]byte, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	raw["cniVersion"] = vb
	return json.Marshal(raw)
}

/* ------------------------------------------------------------------ */
/* default-route (pkg/netutils)                                       */
/* ------------------------------------------------------------------ */

// deleteDefaultGW removes the interface's default routes as upstream
// does: it matches routes whose Dst is nil, which netlink >= 1.3 (the one
// upstream and this module build with) no longer returns for default
// routes, so the kernel's routes stay (multus-cni PR #1552); the libcni
// cache is still rewritten.
func deleteDefaultGW(netnsPath, ifName string) error {
	podNS, err := ns.GetNS(netnsPath)
	if err != nil {
		return errorf("DeleteDefaultGW: Error getting namespace %v", err)
	}
	defer podNS.Close()
	return podNS.Do(func(ns.NetNS) error {
		var err error
		link, _ := netlink.LinkByName(ifName)
		routes, _ := netlink.RouteList(link, netlink.FAMILY_ALL)
		for i := range routes {
			if routes[i].Dst == nil {
				err = netlink.RouteDel(&routes[i])
			}
		}
		return err
	})
}

func setDefaultGW(netnsPath, ifName string, gws []net.IP) error {
	podNS, err := ns.GetNS(netnsPath)
	if err != nil {
		return errorf("SetDefaultGW: Error getting namespace %v", err)
	}
	defer podNS.Close()
	return podNS.Do(func(ns.NetNS) error {
		link, err := netlink.LinkByName(ifName)
		if err != nil {
			return errorf("SetDefaultGW: Error getting link %v", err)
		}
		for _, gw := range gws {
			err = netlink.RouteAdd(&netlink.Route{LinkIndex: link.Attrs().Index, Gw: gw})
			if err != nil {
				if os.IsExist(err) || errors.Is(err, unix.EEXIST) {
					err = nil
				} else {
					errorf("SetDefaultGW: Error adding route: %v", err)
				}
			}
		}
		return err
	})
}

func gatewayResultVersionOK(v string) bool {
	switch v {
	case "0.3.0", "0.3.1", "0.4.0":
		return true
	}
	ok, _ := cniversion.GreaterThanOrEqualTo(v, "1.0.0")
	return ok
}

// editCachedResult rewrites the "result" of libcni's cache file of the
// attachment.
func editCachedResult(cacheDir string, rt *libcni.RuntimeConf, netName string, edit func(map[string]interface{}) error) error {
	path := filepath.Join(cacheDir, "results", fmt.Sprintf("%s-%s-%s", netName, rt.ContainerID, rt.IfName))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var cached map[string]interface{}
	if err := json.Unmarshal(b, &cached); err != nil {
		return err
	}
	if _, ok := cached["result"]; !ok {
		return fmt.Errorf("cannot get result from cache")
	}
	result, ok := cached["result"].(map[string]interface{})
	if !ok {
		return fmt.Errorf("wrong result type: %v", cached["result"])
	}
	if err := edit(result); err != nil {
		return err
	}
	cached["result"] = result
	if b, err = json.Marshal(cached); err != nil {
		return fmt.Errorf("failed to encode json: %v", err)
	}
	return os.WriteFile(path, b, 0o600)
}

// routesWithout drops the routes whose dst is dst (and, as upstream, those
// without a dst).
func routesWithout(routes []interface{}, dst string) ([]interface{}, error) {
	var out []interface{}
	for _, r := range routes {
		route, ok := r.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("wrong route format: %v", r)
		}
		v, ok := route["dst"]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("wrong dst format: %v", v)
		}
		if s != dst {
			out = append(out, r)
		}
	}
	return out, nil
}

func deleteDefaultGWFromResult(result map[string]interface{}, v4, v6 bool) error {
	v, _ := result["cniVersion"].(string)
	if _, has := result["cniVersion"]; !has || v == "0.1.0" || v == "0.2.0" {
		for _, fam := range []struct {
			key, dst string
			on       bool
		}{{"ip4", "0.0.0.0/0", v4}, {"ip6", "::0/0", v6}} {
			if !fam.on {
				continue
			}
			ipc, ok := result[fam.key].(map[string]interface{})
			if !ok {
				continue
			}
			if routes, ok := ipc["routes"].([]interface{}); ok {
				nr, err := routesWithout(routes, fam.dst)
				if err != nil {
					return err
				}
				ipc["routes"] = nr
			}
		}
		return nil
	}
	if !gatewayResultVersionOK(v) {
		return fmt.Errorf("not supported version: %s", v)
	}
	raw, ok := result["routes"]
	if !ok {
		return nil
	}
	routes, ok := raw.([]interface{})
	if !ok {
		return fmt.Errorf("wrong routes format: %v", raw)
	}
	var err error
	if v4 {
		if routes, err = routesWithout(routes, "0.0.0.0/0"); err != nil {
			return err
		}
	}
	if v6 {
		if routes, err = routesWithout(routes, "::0/0"); err != nil {
			return err
		}
	}
	if len(routes) == 0 {
		delete(result, "routes")
	} else {
		result["routes"] = routes
	}
	return nil
}

func addDefaultGWToResult(result map[string]interface{}, gws []net.IP) error {
	v, _ := result["cniVersion"].(string)
	if _, has := result["cniVersion"]; !has || v == "0.1.0" || v == "0.2.0" {
		for _, gw := range gws {
			key, dst := "ip4", "0.0.0.0/0"
			if gw.To4() == nil {
				key, dst = "ip6", "::/0"
			}
			ipc, ok := result[key].(map[string]interface{})
			if !ok {
				continue
			}
			routes, _ := ipc["routes"].([]interface{})
			ipc["routes"] = append(routes, map[string]string{"dst": dst, "gw": gw.String()})
		}
		return nil
	}
	if !gatewayResultVersionOK(v) {
		return fmt.Errorf("not supported version: %s", v)
	}
	routes := []interface{}{}
	if raw, ok := result["routes"]; ok {
		if routes, ok = raw.([]interface{}); !ok {
			return fmt.Errorf("wrong routes format: %v", raw)
		}
	}
	for _, gw := range gws {
		dst := "0.0.0.0/0"
		if gw.To4() == nil {
			dst = "::0/0"
		}
		routes = append(routes, map[string]string{"dst": dst, "gw": gw.String()})
	}
	result["routes"] = routes
	return nil
}

/* ------------------------------------------------------------------ */
/* network-status (the NAD client's CreateNetworkStatuses)            */
/* ------------------------------------------------------------------ */

func isDefaultRoute(r *cnitypes.Route) bool {
	return r.Dst.IP == nil && r.Dst.Mask == nil || r.Dst.IP.Equal(net.IPv4zero) || r.Dst.IP.Equal(net.IPv6zero)
}

func toDNS(d cnitypes.DNS) dnsInfo {
	return dnsInfo{
		Nameservers: append([]string{}, d.Nameservers...),
		Domain:      d.Domain,
		Search:      append([]string{}, d.Search...),
		Options:     append([]string{}, d.Options...),
	}
}

// createNetworkStatuses: one entry per pod interface of the result (the
// one of a single-interface result gets all its IPs).
func createNetworkStatuses(r cnitypes.Result, name string, isDefault bool, dev *deviceInfo) ([]networkStatus, error) {
	res, err := cni100.NewResultFromResult(r)
	if err != nil {
		return nil, fmt.Errorf("error converting the type.Result to cni100.Result: %v", err)
	}
	var gateways []string
	for _, rt := range res.Routes {
		if isDefaultRoute(rt) {
			gateways = append(gateways, rt.GW.String())
		}
	}
	if len(res.Interfaces) == 1 {
		s := networkStatus{Name: name, Default: isDefault, DNS: toDNS(res.DNS), DeviceInfo: dev, Gateway: gateways}
		for _, iface := range res.Interfaces {
			if iface.Sandbox != "" {
				s.Interface, s.Mac, s.Mtu = iface.Name, iface.Mac, iface.Mtu
			}
		}
		for _, ip := range res.IPs {
			s.IPs = append(s.IPs, ip.Address.IP.String())
		}
		return []networkStatus{s}, nil
	}

	// several interfaces: the pod's ones, the default network's default
	// the first with a gateway (else the first), the IPs by interface
	gwIface := -1
	if isDefault {
		for _, ip := range res.IPs {
			if ip.Gateway != nil && ip.Interface != nil {
				gwIface = *ip.Interface
				break
			}
		}
	}
	var statuses []networkStatus
	index := map[int]int{}
	setDefault := false
	for i, iface := range res.Interfaces {
		if iface.Sandbox == "" {
			continue
		}
		def := false
		if isDefault && ((gwIface == i) || (gwIface == -1)) && !setDefault {
			def, setDefault = true, true
		}
		index[i] = len(statuses)
		statuses = append(statuses, networkStatus{
			Name: name, Default: def, Interface: iface.Name, Mac: iface.Mac, Mtu: iface.Mtu,
			IPs: []string{}, Gateway: gateways, DeviceInfo: dev, DNS: toDNS(res.DNS),
		})
	}
	for _, ip := range res.IPs {
		if ip.Interface != nil {
			if j, ok := index[*ip.Interface]; ok {
				statuses[j].IPs = append(statuses[j].IPs, ip.Address.IP.String())
			}
		} else if len(statuses) > 0 {
			last := &statuses[len(statuses)-1]
			last.IPs = append(last.IPs, ip.Address.IP.String())
		}
	}
	return statuses, nil
}

func loadDeviceInfo(path string) (*deviceInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	di := &deviceInfo{}
	if err := json.Unmarshal(b, di); err != nil {
		return nil, err
	}
	return di, nil
}

// copyDPDeviceInfo copies the device plugin's device-info file of the
// device to the delegate's CNIDeviceInfoFile (it must not exist yet).
func copyDPDeviceInfo(cniPath, resourceName, deviceID string) error {
	di, err := loadDeviceInfo(devInfoDPPath(resourceName, deviceID))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cniPath), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(cniPath); err == nil {
		return fmt.Errorf("Device Information file already exists: %s", cniPath)
	}
	b, err := json.Marshal(di)
	if err != nil {
		return err
	}
	return os.WriteFile(cniPath, b, 0o444)
}

/* ------------------------------------------------------------------ */
/* commands                                                           */
/* ------------------------------------------------------------------ */

func emptyResult(args *skel.CmdArgs, v string) *cni100.Result {
	return &cni100.Result{
		CNIVersion: v,
		Interfaces: []*cni100.Interface{{Name: args.IfName, Sandbox: args.Netns}},
		IPs: []*cni100.IPConfig{{
			Address: net.IPNet{IP: net.ParseIP("0.0.0.0"), Mask: net.CIDRMask(0, 32)},
			Gateway: net.ParseIP("0.0.0.0"),
		}},
	}
}

func cmdAdd(args *skel.CmdArgs) (cnitypes.Result, error) {
	n, err := loadNetConf(args.StdinData)
	if err != nil {
		return nil, cmdErr(nil, "error loading netconf: %v", err)
	}
	debugf("CmdAdd: %v", args)
	kc, err := newKubeClient(n.Kubeconfig)
	if err != nil {
		return nil, cmdErr(nil, "error getting k8s client: %v", err)
	}
	k, err := getK8sArgs(args)
	if err != nil {
		return nil, cmdErr(nil, "error getting k8s args: %v", err)
	}
	if n.ReadinessIndicatorFile != "" {
		if err := waitReadinessIndicator(n.ReadinessIndicatorFile); err != nil {
			return nil, cmdErr(k, "have you checked that your default network is ready? still waiting for readinessindicatorfile @ %v. pollimmediate error: %v", n.ReadinessIndicatorFile, err)
		}
	}

	pod, err := getPod(kc, k, false)
	if err != nil {
		if errors.Is(err, errPodNotFound) {
			r := emptyResult(args, n.CNIVersion)
			verbosef("CmdAdd: Warning: pod [%s/%s] not found, exiting with empty CNI result: %v", k.K8S_POD_NAMESPACE, k.K8S_POD_NAME, r)
			return r, nil
		}
		return nil, err
	}

	// one device map for the whole ADD: each network of a resource gets
	// the next of the pod's devices
	var resourceMap map[string]*resourceInfo
	if n.ClusterNetwork != "" {
		if resourceMap, err = getDefaultNetworks(pod, n, kc, resourceMap); err != nil {
			return nil, cmdErr(k, "failed to get clusterNetwork/defaultNetworks: %v", err)
		}
		n.delegates[0].MasterPlugin = true
	}
	_, kcUsed, err := tryLoadPodDelegates(pod, n, kc, resourceMap)
	if err != nil {
		return nil, cmdErr(k, "error loading k8s delegates k8s args: %v", err)
	}

	if n.AuxiliaryCNIChainName != "" {
		if !strings.Contains(n.ClusterNetwork, "/") {
			return nil, cmdErr(k, "auxiliary chain used but ClusterNetwork must be a path, and it is not a path: %v", n.ClusterNetwork)
		}
		aux := fmt.Sprintf(`{"cniVersion":%q,"name":%q,"plugins":[{"type":"passthru","name":"passthru-cni"}]}`, n.CNIVersion, n.AuxiliaryCNIChainName)
		if list, err := loadSubdirectoryChain([]byte(aux), filepath.Dir(n.ClusterNetwork)); err != nil {
			errorf("LoadChainedDelegatesFromBytes: %v", err)
		} else if d, err := loadDelegateFromConfList(list); err == nil && len(d.ConfList.Plugins) > 1 {
			n.delegates = append(n.delegates, d)
		}
	}

	if err := saveDelegates(args.ContainerID, n.CNIDir, n.delegates); err != nil {
		return nil, cmdErr(k, "error saving the delegates: %v", err)
	}

	var result cnitypes.Result
	var statuses []networkStatus
	for idx, d := range n.delegates {
		ifName := getIfname(d, args.IfName, idx)
		rt, devInfoPath := createRuntimeConf(args, k, ifName, n.RuntimeConfig, d)
		if devInfoPath != "" && d.ResourceName != "" && d.DeviceID != "" {
			if err := copyDPDeviceInfo(devInfoPath, d.ResourceName, d.DeviceID); err != nil {
				debugf("CmdAdd: CopyDeviceInfoForCNIFromDP returned an error - err=%v", err)
			}
		}
		netName := d.netName()
		tmp, err := delegateAdd(kc, n, pod, d, rt)
		if err != nil {
			// undo what was added (this one included); DEL is idempotent
			_ = delPlugins(n, args, k, n.delegates, idx)
			return nil, cmdPluginErr(k, netName, "error adding container to network %q: %v", netName, err)
		}
		if d.MasterPlugin || result == nil {
			result = tmp
		}

		res, err := cni100.NewResultFromResult(tmp)
		if err != nil {
			errorf("CmdAdd: failed to read result: %v, but proceed", err)
		}
		if res != nil && (res.Interfaces != nil || res.IPs != nil) {
			if err := applyGatewayRequest(n, args, k, rt, d, netName, ifName); err != nil {
				return nil, err
			}
		}

		var dev *deviceInfo
		if p, ok := rt.CapabilityArgs["CNIDeviceInfoFile"].(string); ok {
			if dev, err = loadDeviceInfo(p); err != nil {
				debugf("CmdAdd: getDelegateDeviceInfo returned an error - err=%v", err)
				dev = nil
			}
		}
		// upstream tests the pod's *name* against systemNamespaces here
		if kc != nil && kcUsed != nil && !inList(string(k.K8S_POD_NAME), n.SystemNamespaces) {
			s, err := createNetworkStatuses(tmp, d.Name, d.MasterPlugin, dev)
			if err != nil {
				return nil, cmdErr(k, "error setting network statuses: %v", err)
			}
			statuses = append(statuses, s...)
		} else if dev != nil {
			errorf("devinfo available, but no kubeConfig so NetworkStatus not modified.")
		}
	}

	if kc != nil && kcUsed != nil && !inList(string(k.K8S_POD_NAME), n.SystemNamespaces) {
		if err := setNetworkStatus(kc, k, statuses); err != nil {
			if strings.Contains(err.Error(), `pod "`) && strings.Contains(err.Error(), `" not found`) {
				verbosef("warning: tolerated failure writing network status (pod not found): %v", err)
			} else {
				return nil, cmdErr(k, "error setting the networks status: %v", err)
			}
		}
	}
	return result, nil
}

// applyGatewayRequest: the default-route of the selections.
func applyGatewayRequest(n *netConf, args *skel.CmdArgs, k *k8sArgs, rt *libcni.RuntimeConf, d *delegateNetConf, netName, ifName string) error {
	delV4, delV6, add := false, false, false
	hasGW := d.GatewayRequest != nil && len(*d.GatewayRequest) != 0
	if d.IsFilterV4Gateway {
		delV4 = true
	} else if hasGW {
		delV4, add = true, true
	}
	if d.IsFilterV6Gateway {
		delV6 = true
	} else if hasGW {
		delV6, add = true, true
	}
	if delV4 || delV6 {
		if err := deleteDefaultGW(args.Netns, ifName); err != nil {
			return cmdErr(k, "error deleting default gateway: %v", err)
		}
		if err := editCachedResult(n.CNIDir, rt, netName, func(r map[string]interface{}) error {
			return deleteDefaultGWFromResult(r, delV4, delV6)
		}); err != nil {
			return cmdErr(k, "error deleting default gateway in cache: %v", err)
		}
	}
	if add {
		if err := setDefaultGW(args.Netns, ifName, *d.GatewayRequest); err != nil {
			return cmdErr(k, "error setting default gateway: %v", err)
		}
		if err := editCachedResult(n.CNIDir, rt, netName, func(r map[string]interface{}) error {
			return addDefaultGWToResult(r, *d.GatewayRequest)
		}); err != nil {
			return cmdErr(k, "error setting default gateway in cache: %v", err)
		}
	}
	return nil
}

func cmdDel(args *skel.CmdArgs) error {
	n, err := loadNetConf(args.StdinData)
	if err != nil {
		return err
	}
	debugf("CmdDel: %v", args)
	k, err := getK8sArgs(args)
	if err != nil {
		return cmdErr(nil, "error getting k8s args: %v", err)
	}
	if n.ReadinessIndicatorFile != "" {
		if _, err := os.Stat(n.ReadinessIndicatorFile); err != nil {
			verbosef("warning: readinessindicatorfile @ %v does not exist on CNI DEL", n.ReadinessIndicatorFile)
		}
	}
	kc, err := newKubeClient(n.Kubeconfig)
	if err != nil {
		return cmdErr(nil, "error getting k8s client: %v", err)
	}
	pod, err := getPod(kc, k, true)
	if err != nil {
		errorf("Multus: GetPod failed: %v, but continue to delete", err)
		pod = nil
	}

	path := filepath.Join(n.CNIDir, args.ContainerID)
	cached, readErr := os.ReadFile(path)
	useCache := false
	if readErr == nil {
		if ds, err := loadCachedDelegates(cached); err != nil {
			errorf("Multus: failed to load netconf: %v", err)
		} else {
			n.delegates = ds
			useCache = true
		}
	}
	if !useCache {
		if !(os.IsNotExist(readErr) && pod != nil) {
			// no cache and no pod: nothing more can be done, and an error
			// would keep the sandbox from going away
			errorf("Multus: failed to get the cached delegates file: %v, cannot properly delete", readErr)
			return nil
		}
		// no cache: what ADD would have run, from the pod
		if n.ClusterNetwork != "" {
			if _, err := getDefaultNetworks(pod, n, kc, nil); err != nil {
				return cmdErr(k, "failed to get clusterNetwork/defaultNetworks: %v", err)
			}
			n.delegates[0].MasterPlugin = true
		}
		if _, _, err := tryLoadPodDelegates(pod, n, kc, nil); err != nil {
			if len(n.delegates) == 0 {
				return cmdErr(k, "failed to get delegates: %v", err)
			}
			errorf("Multus: failed to get delegates: %v, but continue to delete clusterNetwork", err)
		}
	}

	for _, d := range n.delegates {
		if d.ConfListPlugin && d.ConfList.CNIVersion == "" && n.CNIVersion != "" {
			d.ConfList.CNIVersion = n.CNIVersion
			if b, err := setConfListVersion(d.Bytes, n.CNIVersion); err != nil {
				errorf("Multus: failed to inject cniVersion into delegate %q config: %v", d.Name, err)
			} else {
				d.Bytes = b
			}
		}
	}

	e := delPlugins(n, args, k, n.delegates, len(n.delegates)-1)
	if useCache && (!n.RetryDeleteOnError || e == nil || strings.Contains(e.Error(), "no such file or directory")) {
		_ = os.Remove(path)
	}
	return e
}

func cmdCheck(args *skel.CmdArgs) error {
	n, err := loadNetConf(args.StdinData)
	if err != nil {
		return err
	}
	k, err := getK8sArgs(args)
	if err != nil {
		return cmdErr(nil, "error getting k8s args: %v", err)
	}
	// as upstream: the inline "delegates" only (none with clusterNetwork)
	for idx, d := range n.delegates {
		rt, _ := createRuntimeConf(args, k, getIfname(d, args.IfName, idx), n.RuntimeConfig, d)
		if err := delegateCheck(n, d, rt); err != nil {
			return err
		}
	}
	return nil
}

// clusterDelegate: the cluster network for STATUS and GC.
func clusterDelegate(n *netConf) (*delegateNetConf, error) {
	kc, err := newKubeClient(n.Kubeconfig)
	if err != nil {
		return nil, cmdErr(nil, "error getting k8s client: %v", err)
	}
	if n.ReadinessIndicatorFile != "" {
		if err := waitReadinessIndicator(n.ReadinessIndicatorFile); err != nil {
			return nil, cmdErr(nil, "have you checked that your default network is ready? still waiting for readinessindicatorfile @ %v. pollimmediate error: %v", n.ReadinessIndicatorFile, err)
		}
	}
	if n.ClusterNetwork != "" {
		if _, err := getDefaultNetworks(nil, n, kc, nil); err != nil {
			return nil, cmdErr(nil, "failed to get clusterNetwork: %v", err)
		}
		n.delegates[0].MasterPlugin = true
	}
	if len(n.delegates) == 0 {
		return nil, cmdErr(nil, "failed to get clusterNetwork: no delegate")
	}
	return n.delegates[0], nil
}

// clusterList: the delegate as a conflist (a conf wrapped).
func clusterList(d *delegateNetConf) (*libcni.NetworkConfigList, error) {
	if d.ConfListPlugin || (d.Conf.Type == "" && d.ConfList.Name != "") {
		return libcni.ConfListFromBytes(d.Bytes)
	}
	conf, err := libcni.ConfFromBytes(d.Bytes)
	if err != nil {
		return nil, err
	}
	return &libcni.NetworkConfigList{Name: conf.Network.Name, CNIVersion: conf.Network.CNIVersion, Plugins: []*libcni.PluginConfig{conf}}, nil
}

func cmdStatus(args *skel.CmdArgs) error {
	n, err := loadNetConf(args.StdinData)
	if err != nil {
		return cmdErr(nil, "error loading netconf: %v", err)
	}
	d, err := clusterDelegate(n)
	if err != nil {
		return err
	}
	list, err := clusterList(d)
	if err != nil {
		return errorf("error in converting the raw bytes to conf: %v", err)
	}
	// libcni skips a list below 1.1.0 (no STATUS there)
	if err := cniConfig(n).GetStatusNetworkList(context.Background(), list); err != nil {
		var ce *cnitypes.Error
		if errors.As(err, &ce) {
			return err
		}
		return errorf("error in STATUS command: %v", err)
	}
	return nil
}

func cmdGC(args *skel.CmdArgs) error {
	n, err := loadNetConf(args.StdinData)
	if err != nil {
		return cmdErr(nil, "error loading netconf: %v", err)
	}
	d, err := clusterDelegate(n)
	if err != nil {
		return err
	}
	list, err := clusterList(d)
	if err != nil {
		return errorf("error in converting the raw bytes to conf: %v", err)
	}
	// the attachments libcni's cache (under cniDir) knows are valid
	entries, err := os.ReadDir(filepath.Join(n.CNIDir, "results"))
	if err != nil {
		return errorf("error in gather valid attachments: %v", err)
	}
	valid := []cnitypes.GCAttachment{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(n.CNIDir, "results", e.Name()))
		if err != nil {
			errorf("gatherSavedDelegates: cannot read %q, skipped to add", e.Name())
			continue
		}
		var c struct {
			ContainerID string `json:"containerId"`
			IfName      string `json:"ifName"`
		}
		if err := json.Unmarshal(b, &c); err != nil || c.ContainerID == "" || c.IfName == "" {
			errorf("gatherSavedDelegates: cannot read cache, skipped to add: %q", e.Name())
			continue
		}
		valid = append(valid, cnitypes.GCAttachment{ContainerID: c.ContainerID, IfName: c.IfName})
	}
	if err := cniConfig(n).GCNetworkList(context.TODO(), list, &libcni.GCArgs{ValidAttachments: valid}); err != nil {
		return errorf("error in GC command: %v", err)
	}
	return nil
}

func main() {
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	showVersion := false
	fs.BoolVar(&showVersion, "version", false, "Show application version")
	fs.BoolVar(&showVersion, "v", false, "Show application version")
	_ = fs.Parse(os.Args[1:])
	if showVersion {
		fmt.Printf("multus: %s\n", standInVersion)
		return
	}
	skel.PluginMainFuncs(skel.CNIFuncs{
		Add: func(args *skel.CmdArgs) error {
			r, err := cmdAdd(args)
			if err != nil {
				return err
			}
			return r.Print()
		},
		Del:    cmdDel,
		Check:  cmdCheck,
		GC:     cmdGC,
		Status: cmdStatus,
	}, cniversion.All, "meta-plugin that delegates to other CNI plugins (rdmanet test stand-in of Multus)")
}
