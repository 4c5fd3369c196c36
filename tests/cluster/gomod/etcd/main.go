// Command etcd is the upstream etcd server, built from go.etcd.io/etcd/server/v3/etcdmain.
//
// The upstream module has relative replace directives, so `go install` of it fails; this
// wrapper module is how tests/cluster/build gets an etcd binary from the Go module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
