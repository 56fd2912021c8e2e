//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"syscall"
)

// ownerNote returns " (owner uid N, mode M)" for path, or "" when it cannot
// be read.
func ownerNote(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf(" (owner uid %d, mode %s)", st.Uid, fi.Mode())
	}
	return fmt.Sprintf(" (mode %s)", fi.Mode())
}
