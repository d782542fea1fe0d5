module github.com/blitz-go/blitz/internal/release

go 1.24.0

require golang.org/x/mod v0.33.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
