module github.com/blitz-go/blitz/bench

go 1.24.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/blitz-go/blitz v0.1.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/perf v0.0.0-20250305200902-02a15fd477ba
	golang.org/x/sync v0.19.0
	gonum.org/v1/plot v0.16.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.1.0 // indirect
	codeberg.org/go-pdf/fpdf v0.10.0 // indirect
	git.sr.ht/~sbinet/gg v0.6.0 // indirect
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/image v0.25.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
