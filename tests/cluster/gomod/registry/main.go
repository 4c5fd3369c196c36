// Command registry is an in-memory OCI registry for the tests of Helm chart sources (issue 27), built from
// github.com/google/go-containerregistry/pkg/registry.
//
// Upstream's cmd/registry listens on every interface; this wrapper listens on a loopback address only (default
// 127.0.0.1 with a free port) and prints "listening on <address>" as its first line, so a test knows the port.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to listen on; port 0 picks a free port")
	flag.Parse()
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		log.Fatalf("registry: -listen %q: %v", *listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("registry: -listen %q is not a loopback address; this test registry serves only this machine", *listen)
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("registry: %v", err)
	}
	fmt.Printf("listening on %s\n", listener.Addr())
	_ = os.Stdout.Sync()
	server := &http.Server{Handler: registry.New(), ReadHeaderTimeout: 30 * time.Second}
	log.Fatal(server.Serve(listener))
}
