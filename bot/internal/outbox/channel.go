package outbox

import (
	"context"
)

// Channel messages with the bot token, for the work that is not a
// session's board (a tournament's sign-up, pairings, standings and
// podium): posted and edited through deliver, with its tries.

// SendChannel posts msg in channelID with the bot token, tried as deliver
// does (its files sent whole at every try), and returns the new message's
// ID. key names the post (Nonce): a try that got no answer may have
// posted it, and every try carries the key's nonce, so that Discord
// answers a retry with the message the lost try made instead of making
// a second. The same key posted again within Discord's window of a few
// minutes (after a crash between the post and its record) is folded the
// same way; later, it posts again.
func (b *Boards) SendChannel(ctx context.Context, channelID, key string, msg *message) (string, error) {
	if b.Messenger == nil {
		return "", errUnreachable
	}
	var id string
	files := msg.Files
	nonce := Nonce(key)
	err := b.deliver(ctx, func(ctx context.Context) error {
		msg.Files = freshFiles(files)
		var err error
		id, err = b.Messenger.SendChannelMessage(ctx, channelID, nonce, msg)
		return err
	})
	return id, err
}

// EditChannel replaces message messageID of channelID with msg, with the
// bot token, tried as deliver does.
func (b *Boards) EditChannel(ctx context.Context, channelID, messageID string, msg *message) error {
	if b.Messenger == nil {
		return errUnreachable
	}
	return b.deliver(ctx, func(ctx context.Context) error {
		return b.Messenger.EditChannelMessage(ctx, channelID, messageID, msg)
	})
}

// Gone reports whether err says that what a call reached is gone for
// good (the channel or message deleted, access lost): trying again will
// not help.
func Gone(err error) bool { return gone(err) }
