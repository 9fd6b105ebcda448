// Package buildinfo holds what the build stamped into the binary: the
// version and the installation directories it was configured for.
package buildinfo

// Set with -ldflags "-X github.com/ikigai-tools/ikigai/internal/buildinfo.Version=..."
// by the Makefile. The defaults are what a plain "go build" gets.
var (
	Version    = "dev"
	Prefix     = "/usr/local"
	LibexecDir = "/usr/local/libexec"
	SysconfDir = "/usr/local/etc"
	DataDir    = "/usr/local/share"
)
