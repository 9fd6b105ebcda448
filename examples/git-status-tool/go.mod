module github.com/ikigai-tools/ikigai/examples/git-status-tool

go 1.26

require github.com/ikigai-tools/ikigai/toolsdk v0.0.0

replace github.com/ikigai-tools/ikigai/toolsdk => ../../toolsdk
