// Package wire is the HTTP interactions transport's wire format: reading
// and verifying a request as Discord signs it (Ed25519 over the
// X-Signature-Timestamp followed by the body), decoding the interaction
// fast (the clicked message skimmed, not decoded; strings aliasing one
// copy of the body, so that the request's buffer can be reused), and
// encoding the response as encoding/json would through discordgo's
// methods, at a fraction of the cost. The HTTP server around it is
// transport.HTTPServer.
//
// Source: Discord's "Receiving and Responding" (security and
// authorization: discord.com/developers/docs/interactions/receiving-and-responding).
package wire

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// MaxBodyBytes bounds the body of one interaction request, in bytes.
// Discord's interactions are a few kilobytes; a longer body gets 413
// without being read past the limit.
const MaxBodyBytes = 1 << 20

// ParsePublicKey decodes the application's public key as the Developer
// Portal shows it: 64 hexadecimal digits. It returns an error that says what
// is wrong with the value (never echoing it).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("not hexadecimal")
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%d bytes, want %d (64 hex digits)", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// ReadBody appends prefix followed by everything r reads to dst[:0] and
// returns the result, growing dst to prefix's length and size (the
// declared Content-Length; -1 when unknown) when it is smaller and the
// size is right, and as io.ReadAll does otherwise. The signed message of a
// request is its timestamp followed by its body: reading the body in after
// the timestamp lets Verify check it without a copy, and passing the
// buffer of the last request as dst lets a server read without
// allocating. It returns what was read and r's error, if any.
func ReadBody(dst []byte, r io.Reader, prefix string, size int64) ([]byte, error) {
	n := 512
	if size >= 0 && size <= MaxBodyBytes {
		n = int(size) + 1 // the read that meets the end needs room
	}
	b := dst[:0]
	if cap(b) < len(prefix)+n {
		b = make([]byte, 0, len(prefix)+n)
	}
	b = append(b, prefix...)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Verify reports whether header's X-Signature-Ed25519 is key's signature
// of signed, the X-Signature-Timestamp ts (Unix seconds) followed by the
// body, as Discord signs (the check discordgo.VerifyInteraction makes, on
// the body already read), and the timestamp is within window of now,
// either way: an older one is a recorded request played again.
func Verify(key ed25519.PublicKey, header http.Header, ts string, signed []byte, now time.Time, window time.Duration) bool {
	if len(key) != ed25519.PublicKeySize {
		return false
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if skew := now.Sub(time.Unix(sent, 0)); skew > window || skew < -window {
		return false
	}
	sig, err := hex.DecodeString(header.Get("X-Signature-Ed25519"))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(key, signed, sig)
}
