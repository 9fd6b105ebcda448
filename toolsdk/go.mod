module github.com/ikigai-tools/ikigai/toolsdk

go 1.26
