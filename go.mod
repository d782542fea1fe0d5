module github.com/blitz-go/blitz

go 1.24.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.19.0
	golang.org/x/sys v0.41.0
)

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
