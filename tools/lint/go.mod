module github.com/evalgate/evalgate/tools/lint

go 1.26.8

require (
	codeberg.org/polyfloyd/go-errorlint v1.9.1
	github.com/ashanbrown/forbidigo/v2 v2.3.1
	github.com/kunwardeep/paralleltest v1.0.16
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/tools v0.52.0
	honnef.co/go/tools v0.8.2
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
