// Command apiserver-floor measures how fast the kube-apiserver of this machine creates a set of objects when the
// client costs next to nothing: the same server-side-apply creates the component engine sends (same object mix,
// same ownership label and annotations, the same resourceVersion "1" create guard), from C goroutines over one
// HTTP/2 connection. The fastest concurrency is the apiserver's own limit for that set (issue 19); the Python
// side (bench/engine_floor.py) builds this, runs it and reads the server's CPU time around it.
//
// Usage: apiserver-floor -server URL -ca FILE [-cert FILE -key FILE] -namespace NS -objects N -concurrency C
// with the Authorization header (if any) in $APISERVER_FLOOR_AUTHORIZATION. Prints one JSON line.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

type object struct {
	path string
	body []byte
}

// objects is the mix of bench/engine_300.py: 50 % ConfigMaps, 30 % Secrets, 20 % ServiceAccounts.
func objects(namespace string, count int) []object {
	result := make([]object, 0, count)
	for i := 0; i < count; i++ {
		var kind, plural, name string
		extra := map[string]any{}
		switch {
		case i%10 < 5:
			kind, plural, name = "ConfigMap", "configmaps", fmt.Sprintf("cm-%d", i)
			extra["data"] = map[string]string{"i": fmt.Sprint(i)}
		case i%10 < 8:
			kind, plural, name = "Secret", "secrets", fmt.Sprintf("s-%d", i)
			extra["data"] = map[string]string{"i": "MA=="}
		default:
			kind, plural, name = "ServiceAccount", "serviceaccounts", fmt.Sprintf("sa-%d", i)
		}
		manifest := map[string]any{
			"apiVersion": "v1",
			"kind":       kind,
			"metadata": map[string]any{
				"name":            name,
				"namespace":       namespace,
				"resourceVersion": "1",
				"labels":          map[string]string{"component.nubes.cloud/owner-id": "floorfloorfloorfloorfloorfloorfloorfloorfloorfloorfl"},
				"annotations": map[string]string{
					"component.nubes.cloud/owner-id": "00000000-0000-0000-0000-000000000000/" + namespace + "/floor",
					"component.nubes.cloud/digest":   "0000000000000000000000000000000000000000000000000000000000000000",
				},
			},
		}
		for key, value := range extra {
			manifest[key] = value
		}
		body, err := json.Marshal(manifest)
		if err != nil {
			panic(err)
		}
		path := fmt.Sprintf("/api/v1/namespaces/%s/%s/%s?fieldManager=floor&force=true", namespace, plural, name)
		result = append(result, object{path, body})
	}
	return result
}

func client(caFile, certFile, keyFile string) (*http.Client, error) {
	config := &tls.Config{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", caFile)
		}
		config.RootCAs = pool
	}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		config.Certificates = []tls.Certificate{pair}
	}
	transport := &http.Transport{TLSClientConfig: config, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 256}
	return &http.Client{Transport: transport, Timeout: 60 * time.Second}, nil
}

func send(c *http.Client, method, url, contentType string, body []byte) error {
	request, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	request.Header.Set("Content-Type", contentType)
	request.Header.Set("Accept", "application/json")
	if auth := os.Getenv("APISERVER_FLOOR_AUTHORIZATION"); auth != "" {
		request.Header.Set("Authorization", auth)
	}
	response, err := c.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	data, _ := io.ReadAll(response.Body)
	if response.StatusCode >= 300 && !(method == "POST" && response.StatusCode == http.StatusConflict) {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, url, response.StatusCode, data)
	}
	return nil
}

func main() {
	server := flag.String("server", "", "API server URL")
	caFile := flag.String("ca", "", "CA bundle (PEM)")
	certFile := flag.String("cert", "", "client certificate (PEM)")
	keyFile := flag.String("key", "", "client key (PEM)")
	namespace := flag.String("namespace", "", "namespace to create the objects in (created first)")
	count := flag.Int("objects", 300, "objects to create")
	concurrency := flag.Int("concurrency", 8, "requests in flight")
	flag.Parse()
	c, err := client(*caFile, *certFile, *keyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ns, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]string{"name": *namespace}})
	if err := send(c, "POST", *server+"/api/v1/namespaces", "application/json", ns); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// one request first: the TLS handshake and the HTTP/2 connection are not part of the figure
	if err := send(c, "GET", *server+"/api/v1/namespaces/"+*namespace, "application/json", nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work := objects(*namespace, *count)
	queue := make(chan object)
	errs := make(chan error, *count)
	var group sync.WaitGroup
	start := time.Now()
	for worker := 0; worker < *concurrency; worker++ {
		group.Add(1)
		go func() {
			defer group.Done()
			for item := range queue {
				if err := send(c, "PATCH", *server+item.path, "application/apply-patch+yaml", item.body); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, item := range work {
		queue <- item
	}
	close(queue)
	group.Wait()
	seconds := time.Since(start).Seconds()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := json.Marshal(map[string]any{"objects": *count, "concurrency": *concurrency, "seconds": seconds})
	fmt.Println(string(out))
}
