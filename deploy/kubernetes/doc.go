// Package kubernetes holds the Kubernetes manifests of `faucet serve
// --cluster` (the YAML files next to this one, applied with `kubectl apply
// -k`) and the tests that check them without a cluster: every document is
// parsed into typed structs and held to the deployment rules listed in
// README.md, and the container's arguments and environment are started as a
// real `faucet serve` process against a fresh Postgres database. The package
// has no Go API; it exists for its tests.
package kubernetes
