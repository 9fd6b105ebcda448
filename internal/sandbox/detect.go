package sandbox

import "sync"

// Support is what this machine offers for confining processes.
type Support struct {
	// ABI is the version of Landlock the kernel has; 0 for none, and
	// Missing says why.
	ABI     int
	Missing string
	// NetNS says a process can be started in a network namespace of its
	// own: as root, or where user namespaces are allowed. NetNSMissing
	// says why not. Both are known only once NetNSChecked is set.
	NetNS        bool
	NetNSMissing string
	NetNSChecked bool
}

// Detect returns what this machine supports for confining files, asking
// the kernel once per process.
var Detect = sync.OnceValue(func() Support {
	abi, missing := landlockABI()
	return Support{ABI: abi, Missing: missing}
})

// DetectNetNS adds to s whether a network namespace can be made, found
// out once per process by starting a process in one (about a millisecond).
func (s *Support) DetectNetNS() {
	if s.NetNSChecked {
		return
	}
	s.NetNSChecked = true
	if err := netNSOnce(); err != nil {
		s.NetNSMissing = err.Error()
		return
	}
	s.NetNS = true
}

var netNSOnce = sync.OnceValue(probeNetNS)
