package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/connectn/connectn/sessions"
)

// selectSettingsSQL reads one server's settings: a lookup of the primary
// key, at every call (GuildSettings keeps nothing in memory).
const selectSettingsSQL = `SELECT settings, revision, updated_at, updated_by FROM guild_settings WHERE guild_id = ?`

// insertSettingsSQL writes a server's first settings, unless another
// process wrote them first (then no row changes: the compare-and-swap of a
// row that did not exist).
const insertSettingsSQL = `INSERT INTO guild_settings (guild_id, settings, revision, updated_at, updated_by)
	VALUES (?, ?, 0, ?, ?) ON CONFLICT (guild_id) DO NOTHING`

// updateSettingsSQL writes a server's settings if they are still at the
// revision loaded: the compare-and-swap of UpdateGuildSettings.
const updateSettingsSQL = `UPDATE guild_settings SET settings = ?, revision = revision + 1, updated_at = ?, updated_by = ?
	WHERE guild_id = ? AND revision = ?`

// storedSettings is a server's settings row as read: absent (found false)
// for a server that set nothing.
type storedSettings struct {
	found    bool
	raw      []byte // the settings column as stored
	revision int64
	settings sessions.GuildSettings
}

// GuildSettings implements sessions.Store.
func (s *Store) GuildSettings(ctx context.Context, guildID string) (sessions.GuildSettings, error) {
	st, err := s.loadSettings(ctx, guildID)
	if err != nil {
		return sessions.GuildSettings{}, fmt.Errorf("settings of guild %s: %w", guildID, err)
	}
	return st.settings, nil
}

// loadSettings reads guildID's row.
func (s *Store) loadSettings(ctx context.Context, guildID string) (storedSettings, error) {
	var (
		st               = storedSettings{settings: sessions.GuildSettings{GuildID: guildID}}
		settings, at, by string
		revision         int64
	)
	err := s.st.settings.QueryRowContext(ctx, guildID).Scan(&settings, &revision, &at, &by)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	g, err := decodeSettings(guildID, []byte(settings), at, by)
	if err != nil {
		return st, err
	}
	return storedSettings{found: true, raw: []byte(settings), revision: revision, settings: g}, nil
}

// decodeSettings rebuilds the settings of guildID from the columns of its
// row. It returns an error wrapping sessions.ErrCorrupt, naming the
// column, when they cannot be read.
func decodeSettings(guildID string, settings []byte, updatedAt, updatedBy string) (sessions.GuildSettings, error) {
	g := sessions.GuildSettings{GuildID: guildID, UpdatedBy: updatedBy}
	corrupt := func(what string, err error) error {
		return fmt.Errorf("%s: %w: %w", what, sessions.ErrCorrupt, err)
	}
	if guildID == "" {
		return g, corrupt("guild_id", errors.New("empty"))
	}
	if err := json.Unmarshal(settings, &g); err != nil {
		return g, corrupt("settings", err)
	}
	var err error
	if g.UpdatedAt, err = time.Parse(TimeFormat, updatedAt); err != nil {
		return g, corrupt("updated_at", err)
	}
	return g, nil
}

// settingsKeys are the JSON keys of sessions.GuildSettings this program
// knows.
var settingsKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[sessions.GuildSettings]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
})

// encodeSettings returns g as the JSON stored in guild_settings.settings,
// keeping the keys of old (the stored JSON, or nil) that this program does
// not know: settings a newer version of the bot, running beside this one
// during an upgrade, wrote there.
func encodeSettings(g *sessions.GuildSettings, old []byte) (string, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return "", fmt.Errorf("encode settings: %w", err)
	}
	var kept map[string]json.RawMessage
	if len(old) == 0 || json.Unmarshal(old, &kept) != nil {
		return string(b), nil
	}
	for k := range kept {
		if settingsKeys()[k] {
			delete(kept, k)
		}
	}
	if len(kept) == 0 {
		return string(b), nil
	}
	var known map[string]json.RawMessage
	if err := json.Unmarshal(b, &known); err != nil {
		return "", fmt.Errorf("encode settings: %w", err)
	}
	for k, v := range known {
		kept[k] = v
	}
	if b, err = json.Marshal(kept); err != nil {
		return "", fmt.Errorf("encode settings: %w", err)
	}
	return string(b), nil
}

// UpdateGuildSettings implements sessions.Store; see its contract for how
// it retries.
func (s *Store) UpdateGuildSettings(ctx context.Context, guildID, userID string, fn func(*sessions.GuildSettings) error) (sessions.GuildSettings, error) {
	if guildID == "" {
		return sessions.GuildSettings{}, errors.New("update settings: empty guild id")
	}
	unlock, err := s.settingsLocks.lock(ctx, guildID)
	if err != nil {
		return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %w", guildID, err)
	}
	defer unlock()
	for try := 0; try < sessions.MaxAttempts; try++ {
		g, err := s.tryUpdateSettings(ctx, guildID, userID, fn)
		if !errors.Is(err, errLost) {
			return g, err
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %w", guildID, err)
		}
	}
	return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %d tries lost to other writers: %w", guildID, sessions.MaxAttempts, sessions.ErrConflict)
}

// tryUpdateSettings is one load, fn and compare-and-swap; it returns
// errLost when another process wrote the settings first.
func (s *Store) tryUpdateSettings(ctx context.Context, guildID, userID string, fn func(*sessions.GuildSettings) error) (sessions.GuildSettings, error) {
	st, err := s.loadSettings(ctx, guildID)
	if err != nil {
		return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %w", guildID, err)
	}
	g := st.settings
	if err := fn(&g); err != nil {
		return sessions.GuildSettings{}, err
	}
	now := s.clock()
	g.GuildID, g.UpdatedAt, g.UpdatedBy = guildID, now, userID
	text, err := encodeSettings(&g, st.raw)
	if err != nil {
		return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %w", guildID, err)
	}
	done := s.lockWrites()
	if st.found {
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(updateSettingsSQL), text, formatTime(now), userID, guildID, st.revision))
	} else {
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(insertSettingsSQL), guildID, text, formatTime(now), userID))
	}
	done()
	switch {
	case errors.Is(err, errLost):
		return sessions.GuildSettings{}, err
	case err != nil:
		return sessions.GuildSettings{}, fmt.Errorf("update settings of guild %s: %w", guildID, err)
	}
	return g, nil
}
