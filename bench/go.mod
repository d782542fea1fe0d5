module github.com/blitz-go/blitz/bench

go 1.24.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/blitz-go/blitz v0.0.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.19.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.41.0 // indirect
)

replace github.com/blitz-go/blitz => ../
