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

// releaseSlots empties slots and gives their pages back to the system
// (madvise MADV_DONTNEED: the next touch of a page finds it zeroed, an empty
// entry); the entries before the first whole page and after the last are
// cleared in place.
func releaseSlots(s []uint64) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
	page := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	from := int((start+page-1)&^(page-1) - start) // bytes to the first whole page
	to := from + int(uintptr(len(b)-min(from, len(b)))&^(page-1))
	if to <= from || syscall.Madvise(b[from:to], syscall.MADV_DONTNEED) != nil {
		clear(s)
		return
	}
	clear(b[:from])
	clear(b[to:])
}
