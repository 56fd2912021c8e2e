//go:build race

package ai

// raceBuild reports a build with the race detector (table.store).
const raceBuild = true
