package session

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock on f without waiting for it: a session
// another writer holds is an *InUseError naming that writer's process. The
// lock belongs to f's open file, so it goes when f is closed, or when the
// process ends however it ends; the file is opened close-on-exec, so no
// tool the process starts holds it.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return &InUseError{Path: f.Name(), PID: holder(f)}
		}
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
}

// holder returns the process holding the flock on f, from /proc/locks
// (where flock(1) and lslocks find it too), or 0 when it cannot tell: no
// /proc, or a process in another pid namespace.
func holder(f *os.File) int {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer locks.Close()
	// "1: FLOCK  ADVISORY  WRITE 1234 fe:00:9977912 0 EOF": the device's
	// major and minor in hex, the inode in decimal. Waiters' lines have
	// "->" after the number.
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != id {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}
