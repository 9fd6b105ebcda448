module github.com/ikigai-tools/ikigai

go 1.26

require (
	github.com/ikigai-tools/ikigai/toolsdk v0.0.0
	github.com/rogpeppe/go-internal v1.16.0
)

require (
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

replace github.com/ikigai-tools/ikigai/toolsdk => ./toolsdk
