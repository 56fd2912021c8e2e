//go:build !unix

package sqlite

import (
	"fmt"
	"os"
)

// ownerNote returns " (mode M)" for path, or "" when it cannot be read.
func ownerNote(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (mode %s)", fi.Mode())
}
