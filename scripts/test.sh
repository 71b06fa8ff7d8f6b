#!/usr/bin/env bash
# The test command of the README: bring up the services the integration
# tests need, then run every test with the race detector (and the allocation
# bounds, which need a build without it). Under CI=true a service that cannot
# be reached fails the tests instead of skipping them.
set -euo pipefail
export PATH=/usr/local/go/bin:$PATH
cd "$(dirname "$0")/.."
bash scripts/services.sh || { [ "${CI:-}" = true ] && exit 1; echo "some services are down: their tests will skip" >&2; }
go test -race -count=1 -timeout 20m "${@:-./...}"
if [ $# -eq 0 ]; then
	# The file connectors' allocation bound (buffers and page memory are
	# recycled) can only be checked without -race, whose sync.Pool drops
	# items on purpose.
	go test -count=1 -run 'Conformance/source/stream_with_bounded_memory' ./connector/connectortest
fi
