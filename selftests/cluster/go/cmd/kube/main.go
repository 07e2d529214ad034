// Command kube is one binary for the upstream server programs the test
// cluster runs, chosen by the name it is called by (argv[0], a symlink):
// kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
// kube-proxy and etcd. Each case is what that command's own main does
// (k8s.io/kubernetes/cmd/*/*.go, go.etcd.io/etcd/server/v3/etcdmain); one
// link instead of six saves minutes of a cold build. kubectl, containerd,
// its shim and ctr are built from their own main packages (go.mod's tools).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"

	_ "k8s.io/component-base/logs/json/register"          // JSON log format
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric
	_ "time/tzdata"                                       // CronJob time zones
)

func main() {
	name := filepath.Base(os.Args[0])
	var cmd *cobra.Command
	switch name {
	case "kube-apiserver":
		cmd = apiserver.NewAPIServerCommand()
	case "kube-controller-manager":
		cmd = controllermanager.NewControllerManagerCommand()
	case "kube-scheduler":
		cmd = scheduler.NewSchedulerCommand()
	case "kubelet":
		cmd = kubelet.NewKubeletCommand(context.Background())
	case "kube-proxy":
		cmd = proxy.NewProxyCommand()
	case "etcd":
		etcdmain.Main(os.Args)
		return
	default:
		fmt.Fprintf(os.Stderr, "kube: called as %q: link it as kube-apiserver, "+
			"kube-controller-manager, kube-scheduler, kubelet, kube-proxy or etcd\n", name)
		os.Exit(2)
	}
	os.Exit(cli.Run(cmd))
}
