//go:build linux

package ai

import (
	"syscall"
	"unsafe"
)

// allocSlots returns n zeroed table entries. On Linux it maps them
// directly and asks for transparent huge pages: the table is read at random,
// and with 4 KiB pages nearly every probe would also miss the TLB. It falls
// back to the Go heap if the mapping fails.
func allocSlots(n uint64) []uint64 {
	b, err := syscall.Mmap(-1, 0, int(n*8), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]uint64, n)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only: fine to ignore
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}
