package outbox

import (
	"context"
	"slices"
)

// FindInChannel looks among the latest messages of channelID (recentLimit
// of them, with the bot token) for one that carries a button whose
// custom_id is customID, and returns its ID, or "" when there is none:
// for a post whose process may have sent it before it died (the daily
// puzzle's), which is looked for before it is sent again. It returns the
// messenger's error when the channel cannot be read (no bot token, no
// access), once tried as deliver tries.
func (b *Boards) FindInChannel(ctx context.Context, channelID, customID string) (string, error) {
	if b.Messenger == nil {
		return "", errUnreachable
	}
	var found string
	err := b.deliver(ctx, func(ctx context.Context) error {
		msgs, err := b.Messenger.RecentChannelMessages(ctx, channelID, recentLimit)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if slices.Contains(customIDs(m.Components), customID) {
				found = m.ID
				return nil
			}
		}
		return nil
	})
	return found, err
}
