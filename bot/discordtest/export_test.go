package discordtest

// SetBeforeApply sets the function Deliver runs between reading the bot's
// answer and applying it (nil for none), for a test that needs that
// moment.
func SetBeforeApply(f func(interactionID string)) { beforeApply = f }

// LimitKinds returns the kinds of limitTable, the sizes the fake checks.
func LimitKinds() []string {
	var kinds []string
	for k := range limitTable {
		kinds = append(kinds, k)
	}
	return kinds
}
