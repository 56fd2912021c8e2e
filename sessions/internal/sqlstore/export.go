package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/connectn/connectn/sessions"
)

// ExportVersion is the version of the export format, in its header line.
// Version 2 added the guild_settings lines, the matches' ended_by and the
// trailer's guild_settings count; version 3 the member_rating lines, the
// matches' rated, rated_capped, ratings and rated_at, and the trailer's
// member_ratings count; version 4 the tournaments (the tournament,
// tournament_entry, tournament_round and tournament_pairing lines), the
// matches' tournament_id, tournament_round and tournament_board, and the
// trailer's four counts of them (left out when 0); version 5 the puzzles'
// lines (found_puzzle, puzzle_scan, puzzle_rating, puzzle_player,
// puzzle_attempt, puzzle_daily, puzzle_day, puzzle_daily_post; see
// puzzles_export.go) and the trailer's counts of them (left out when 0);
// version 6 the shared result cards (shared_card lines, cards.go) and the
// trailer's shared_cards count (left out when 0). Files of earlier
// versions import as they are, the columns they lack taking their
// defaults (no match rated, no rating, no tournament, no puzzle, no card
// shared).
const ExportVersion = 6

// The export format is JSON lines: a header, then one line per stored row
// (every match, member record, pair record, server's settings and member's
// rating, as stored), then a trailer with the counts, so that a file cut
// short is refused on import:
//
//	{"connectn_export":3,"schema":6,"backend":"sqlite","exported_at":"..."}
//	{"match":{"id":1,"revision":7,"channel_id":"...","config":{...},"actions":[...],...,"rated":1,"ratings":{...}}}
//	{"member_stats":{"guild_id":"...","user_id":"...","vs_ai":0,"matches":3,...}}
//	{"pair_record":{"guild_id":"...","user_id":"...","opponent_id":"...","wins":2,"losses":1}}
//	{"guild_settings":{"guild_id":"...","settings":{"rows":7,...},"revision":2,"updated_at":"...","updated_by":"..."}}
//	{"member_rating":{"guild_id":"...","user_id":"...","r":1662.31,"rd":290.32,"sigma":0.059999,"games":1,...}}
//	{"tournament":{"id":1,"revision":40,"guild_id":"...","config":{"name":"...","format":"swiss"},"status":"running",...}}
//	{"tournament_entry":{"tournament_id":1,"seq":1,"user_id":"...","name":"...","rating":1500,"withdrawn":0}}
//	{"tournament_round":{"tournament_id":1,"number":1,"started_at":"..."}}
//	{"tournament_pairing":{"tournament_id":1,"round":1,"board":1,"opener_id":"...","second_id":"...","result":"1-0",...}}
//	{"puzzle_attempt":{"id":3,"user_id":"...","puzzle_id":"...","line":"6x7c4 ... win5 3 gen:1",...}}
//	{"end":{"matches":1,"member_stats":1,"pair_records":1,"guild_settings":1,"member_ratings":1,"tournaments":1,"puzzle_attempts":1,...}}
//
// The header of an export of one server (ExportOptions.GuildID) names it
// in "guild_id".
type exportHeader struct {
	Version    int    `json:"connectn_export"`
	Schema     int    `json:"schema"`
	Backend    string `json:"backend"`
	ExportedAt string `json:"exported_at"`
	GuildID    string `json:"guild_id,omitempty"`
}

// MatchRow is one row of the matches table as exported: every column, the
// JSON ones (config, actions, webhook, place, ratings) as JSON. Place,
// EndedBy, Rated, RatedCapped, Ratings and RatedAt are absent from exports
// made before they existed; Ratings is absent for a match that changed no
// rating.
type MatchRow struct {
	ID          int64           `json:"id"`
	Revision    int64           `json:"revision"`
	ChannelID   string          `json:"channel_id"`
	GuildID     string          `json:"guild_id"`
	Player1ID   string          `json:"player1_id"`
	Player1Name string          `json:"player1_name"`
	Player2ID   string          `json:"player2_id"`
	Player2Name string          `json:"player2_name"`
	Config      json.RawMessage `json:"config"`
	Actions     json.RawMessage `json:"actions"`
	Phase       string          `json:"phase"`
	MessageID   string          `json:"message_id"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
	Theme       string          `json:"theme"`
	AILevel     string          `json:"ai_level"`
	EndReason   string          `json:"end_reason"`
	DeadlineAt  string          `json:"deadline_at"`
	PostSeq     int64           `json:"post_seq"`
	PostDue     string          `json:"post_due"`
	Webhook     json.RawMessage `json:"webhook"`
	Place       json.RawMessage `json:"place,omitempty"`
	EndedBy     string          `json:"ended_by"`
	Rated       int64           `json:"rated"`
	RatedCapped int64           `json:"rated_capped"`
	Ratings     json.RawMessage `json:"ratings,omitempty"`
	RatedAt     string          `json:"rated_at"`
	// The tournament game the session plays; absent for any other.
	TournamentID    int64 `json:"tournament_id,omitempty"`
	TournamentRound int64 `json:"tournament_round,omitempty"`
	TournamentBoard int64 `json:"tournament_board,omitempty"`
}

// StatsRow is one row of member_stats as exported.
type StatsRow struct {
	GuildID     string `json:"guild_id"`
	UserID      string `json:"user_id"`
	VsAI        int64  `json:"vs_ai"`
	Matches     int64  `json:"matches"`
	Wins        int64  `json:"wins"`
	Losses      int64  `json:"losses"`
	RoundsWon   int64  `json:"rounds_won"`
	RoundsLost  int64  `json:"rounds_lost"`
	RoundsDrawn int64  `json:"rounds_drawn"`
	Streak      int64  `json:"streak"`
	BestStreak  int64  `json:"best_streak"`
	UpdatedAt   string `json:"updated_at"`
}

// PairRow is one row of pair_records as exported.
type PairRow struct {
	GuildID    string `json:"guild_id"`
	UserID     string `json:"user_id"`
	OpponentID string `json:"opponent_id"`
	Wins       int64  `json:"wins"`
	Losses     int64  `json:"losses"`
}

// SettingsRow is one row of guild_settings as exported: Settings is the
// stored JSON of sessions.GuildSettings.
type SettingsRow struct {
	GuildID   string          `json:"guild_id"`
	Settings  json.RawMessage `json:"settings"`
	Revision  int64           `json:"revision"`
	UpdatedAt string          `json:"updated_at"`
	UpdatedBy string          `json:"updated_by"`
}

// RatingRow is one row of member_ratings as exported.
type RatingRow struct {
	GuildID    string  `json:"guild_id"`
	UserID     string  `json:"user_id"`
	R          float64 `json:"r"`
	RD         float64 `json:"rd"`
	Sigma      float64 `json:"sigma"`
	Games      int64   `json:"games"`
	Best       float64 `json:"best"`
	LastPlayed string  `json:"last_played"`
}

// TournamentRow is one row of tournaments as exported: Config, Settings
// and Posts are the stored JSON.
type TournamentRow struct {
	ID        int64           `json:"id"`
	Revision  int64           `json:"revision"`
	GuildID   string          `json:"guild_id"`
	ChannelID string          `json:"channel_id"`
	Name      string          `json:"name"`
	Format    string          `json:"format"`
	Config    json.RawMessage `json:"config"`
	Seed      int64           `json:"seed"`
	Status    string          `json:"status"`
	Settings  json.RawMessage `json:"settings"`
	Posts     json.RawMessage `json:"posts"`
	StartedAt string          `json:"started_at"`
	DueAt     string          `json:"due_at"`
	CreatedBy string          `json:"created_by"`
	EndedBy   string          `json:"ended_by"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}

// EntryRow is one row of tournament_entries as exported.
type EntryRow struct {
	TournamentID int64   `json:"tournament_id"`
	Seq          int64   `json:"seq"`
	UserID       string  `json:"user_id"`
	Name         string  `json:"name"`
	Rating       float64 `json:"rating"`
	Withdrawn    int64   `json:"withdrawn"`
}

// RoundRow is one row of tournament_rounds as exported.
type RoundRow struct {
	TournamentID int64  `json:"tournament_id"`
	Number       int64  `json:"number"`
	StartedAt    string `json:"started_at"`
}

// PairingRow is one row of tournament_pairings as exported.
type PairingRow struct {
	TournamentID int64  `json:"tournament_id"`
	Round        int64  `json:"round"`
	Board        int64  `json:"board"`
	OpenerID     string `json:"opener_id"`
	SecondID     string `json:"second_id"`
	Result       string `json:"result"`
	SessionID    int64  `json:"session_id"`
	ChannelID    string `json:"channel_id"`
	ClaimedUntil string `json:"claimed_until"`
}

// Counts are the rows exported or imported, by table.
type Counts = sessions.ExportCounts

type exportLine struct {
	Match    *MatchRow    `json:"match,omitempty"`
	Stats    *StatsRow    `json:"member_stats,omitempty"`
	Pair     *PairRow     `json:"pair_record,omitempty"`
	Settings *SettingsRow `json:"guild_settings,omitempty"`
	Rating   *RatingRow   `json:"member_rating,omitempty"`
	// The tournaments, with their entries, rounds and pairings.
	Tournament *TournamentRow `json:"tournament,omitempty"`
	Entry      *EntryRow      `json:"tournament_entry,omitempty"`
	Round      *RoundRow      `json:"tournament_round,omitempty"`
	Pairing    *PairingRow    `json:"tournament_pairing,omitempty"`
	// The puzzles' tables (puzzles_export.go).
	FoundPuzzle   puzzleRow `json:"found_puzzle,omitempty"`
	PuzzleScan    puzzleRow `json:"puzzle_scan,omitempty"`
	PuzzleRating  puzzleRow `json:"puzzle_rating,omitempty"`
	PuzzlePlayer  puzzleRow `json:"puzzle_player,omitempty"`
	PuzzleAttempt puzzleRow `json:"puzzle_attempt,omitempty"`
	DailyPuzzle   puzzleRow `json:"puzzle_daily,omitempty"`
	PuzzleDay     puzzleRow `json:"puzzle_day,omitempty"`
	DailyPost     puzzleRow `json:"puzzle_daily_post,omitempty"`
	// The shared result cards (cards.go), described with the puzzles'
	// tables.
	SharedCard puzzleRow `json:"shared_card,omitempty"`
	End        *Counts   `json:"end,omitempty"`
	// Header is never written: exports made before it had its tag carry
	// "Header":null in their trailer, which import reads.
	Header *exportHeader `json:"header,omitempty"`
}

// The export's queries, each of every row of its table or, with the
// condition inGuild, of one server's rows (its guild_id as the one
// argument).
const (
	exportMatches = `SELECT id, revision, channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
	config, actions, phase, message_id, created_at, updated_at,
	theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook, place, ended_by,
	rated, rated_capped, ratings, rated_at, tournament_id, tournament_round, tournament_board FROM matches %s ORDER BY id`
	exportStats = `SELECT guild_id, user_id, vs_ai, matches, wins, losses, rounds_won, rounds_lost, rounds_drawn,
	streak, best_streak, updated_at FROM member_stats %s ORDER BY guild_id, user_id, vs_ai`
	exportPairs    = `SELECT guild_id, user_id, opponent_id, wins, losses FROM pair_records %s ORDER BY guild_id, user_id, opponent_id`
	exportSettings = `SELECT guild_id, settings, revision, updated_at, updated_by FROM guild_settings %s ORDER BY guild_id`
	exportRatings  = `SELECT guild_id, user_id, r, rd, sigma, games, best, last_played FROM member_ratings %s ORDER BY guild_id, user_id`
	inGuild        = `WHERE guild_id = ?`

	exportTournaments = `SELECT id, revision, guild_id, channel_id, name, format, config, seed, status, settings, posts,
	started_at, due_at, created_by, ended_by, created_at, updated_at FROM tournaments %s ORDER BY id`
	exportEntries = `SELECT tournament_id, seq, user_id, name, rating, withdrawn FROM tournament_entries %s
	ORDER BY tournament_id, seq`
	exportRounds   = `SELECT tournament_id, number, started_at FROM tournament_rounds %s ORDER BY tournament_id, number`
	exportPairings = `SELECT tournament_id, round, board, opener_id, second_id, result, session_id, channel_id, claimed_until
	FROM tournament_pairings %s ORDER BY tournament_id, round, board`
	// inGuildTournament is the condition of one server's rows of the
	// tables of a tournament's entries, rounds and pairings.
	inGuildTournament = `WHERE tournament_id IN (SELECT id FROM tournaments WHERE guild_id = ?)`
)

// Export writes every match, member record, pair record, server's settings
// and member's rating to w as JSON lines (see the format above), or with
// opts.GuildID those of one server only, read in one transaction so that
// they are consistent with each other even while the bot runs. schema is
// the schema version written in the header. It returns the counts
// written. Its errors carry no "export" prefix (the caller names what it
// was doing): a failure of the database names the store, one of w is w's
// own error.
func (s *Store) Export(ctx context.Context, w io.Writer, schema int, opts sessions.ExportOptions) (Counts, error) {
	var n Counts
	tx, err := s.db.BeginTx(ctx, s.d.SnapshotTx)
	if err != nil {
		return n, s.failed(err)
	}
	defer func() { _ = tx.Rollback() }()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(exportHeader{Version: ExportVersion, Schema: schema, Backend: s.d.Name,
		ExportedAt: s.clock().Format(TimeFormat), GuildID: opts.GuildID}); err != nil {
		return n, err
	}
	where, args := "", []any(nil)
	if opts.GuildID != "" {
		where, args = inGuild, []any{opts.GuildID}
	}
	each := func(query string, scan func(*sql.Rows) (exportLine, error), count *int) error {
		where := where
		if where != "" && (query == exportEntries || query == exportRounds || query == exportPairings) {
			where = inGuildTournament
		}
		rows, err := tx.QueryContext(ctx, s.d.Rebind(fmt.Sprintf(query, where)), args...)
		if err != nil {
			return s.failed(err)
		}
		defer rows.Close()
		for rows.Next() {
			line, err := scan(rows)
			if err != nil {
				return s.failed(err)
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
			*count++
		}
		if err := rows.Err(); err != nil {
			return s.failed(err)
		}
		return nil
	}
	err = each(exportMatches, func(rows *sql.Rows) (exportLine, error) {
		var m MatchRow
		var config, actions, webhook, place, ratings string
		err := rows.Scan(&m.ID, &m.Revision, &m.ChannelID, &m.GuildID, &m.Player1ID, &m.Player1Name, &m.Player2ID, &m.Player2Name,
			&config, &actions, &m.Phase, &m.MessageID, &m.CreatedAt, &m.UpdatedAt,
			&m.Theme, &m.AILevel, &m.EndReason, &m.DeadlineAt, &m.PostSeq, &m.PostDue, &webhook, &place, &m.EndedBy,
			&m.Rated, &m.RatedCapped, &ratings, &m.RatedAt, &m.TournamentID, &m.TournamentRound, &m.TournamentBoard)
		m.Config, m.Actions, m.Webhook, m.Place = rawJSON(config), exportActions(actions), rawJSON(webhook), rawJSON(place)
		if ratings != "" {
			m.Ratings = rawJSON(ratings)
		}
		return exportLine{Match: &m}, err
	}, &n.Matches)
	if err == nil {
		err = each(exportStats, func(rows *sql.Rows) (exportLine, error) {
			var r StatsRow
			err := rows.Scan(&r.GuildID, &r.UserID, &r.VsAI, &r.Matches, &r.Wins, &r.Losses, &r.RoundsWon, &r.RoundsLost,
				&r.RoundsDrawn, &r.Streak, &r.BestStreak, &r.UpdatedAt)
			return exportLine{Stats: &r}, err
		}, &n.MemberStats)
	}
	if err == nil {
		err = each(exportPairs, func(rows *sql.Rows) (exportLine, error) {
			var r PairRow
			err := rows.Scan(&r.GuildID, &r.UserID, &r.OpponentID, &r.Wins, &r.Losses)
			return exportLine{Pair: &r}, err
		}, &n.PairRecords)
	}
	if err == nil {
		err = each(exportSettings, func(rows *sql.Rows) (exportLine, error) {
			var r SettingsRow
			var settings string
			err := rows.Scan(&r.GuildID, &settings, &r.Revision, &r.UpdatedAt, &r.UpdatedBy)
			r.Settings = rawJSON(settings)
			return exportLine{Settings: &r}, err
		}, &n.GuildSettings)
	}
	if err == nil {
		err = each(exportRatings, func(rows *sql.Rows) (exportLine, error) {
			var r RatingRow
			err := rows.Scan(&r.GuildID, &r.UserID, &r.R, &r.RD, &r.Sigma, &r.Games, &r.Best, &r.LastPlayed)
			return exportLine{Rating: &r}, err
		}, &n.MemberRatings)
	}
	if err == nil {
		err = each(exportTournaments, func(rows *sql.Rows) (exportLine, error) {
			var r TournamentRow
			var config, settings, posts string
			err := rows.Scan(&r.ID, &r.Revision, &r.GuildID, &r.ChannelID, &r.Name, &r.Format, &config, &r.Seed, &r.Status,
				&settings, &posts, &r.StartedAt, &r.DueAt, &r.CreatedBy, &r.EndedBy, &r.CreatedAt, &r.UpdatedAt)
			r.Config, r.Settings, r.Posts = rawJSON(config), rawJSON(settings), rawJSON(posts)
			return exportLine{Tournament: &r}, err
		}, &n.Tournaments)
	}
	if err == nil {
		err = each(exportEntries, func(rows *sql.Rows) (exportLine, error) {
			var r EntryRow
			err := rows.Scan(&r.TournamentID, &r.Seq, &r.UserID, &r.Name, &r.Rating, &r.Withdrawn)
			return exportLine{Entry: &r}, err
		}, &n.TournamentEntries)
	}
	if err == nil {
		err = each(exportRounds, func(rows *sql.Rows) (exportLine, error) {
			var r RoundRow
			err := rows.Scan(&r.TournamentID, &r.Number, &r.StartedAt)
			return exportLine{Round: &r}, err
		}, &n.TournamentRounds)
	}
	if err == nil {
		err = each(exportPairings, func(rows *sql.Rows) (exportLine, error) {
			var r PairingRow
			err := rows.Scan(&r.TournamentID, &r.Round, &r.Board, &r.OpenerID, &r.SecondID, &r.Result, &r.SessionID,
				&r.ChannelID, &r.ClaimedUntil)
			return exportLine{Pairing: &r}, err
		}, &n.TournamentPairings)
	}
	if err == nil {
		err = s.exportPuzzles(ctx, tx, enc, opts.GuildID, &n)
	}
	if err == nil {
		end := n
		err = enc.Encode(exportLine{End: &end})
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return n, err
	}
	return n, nil
}

// failed names the store in an error of its database.
func (s *Store) failed(err error) error { return fmt.Errorf("session store %s: %w", s.name, err) }

// rawJSON returns s as JSON if it is valid JSON, else as a JSON string (a
// damaged column is exported as the text it holds; import then refuses
// it, naming its line).
func rawJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// Import reads what Export wrote from r into the store, which must be
// empty (no match, member record, pair record, member rating or server
// settings), in one transaction:
// either every row is imported, keeping each session's ID (buttons in
// Discord carry it) and revision, or none is. Each match is checked as a
// load would (its actions must replay) and a file without its trailer, or
// whose counts differ from its lines, is refused, so a truncated file
// changes nothing. It returns the counts imported. Its errors carry no
// "import" prefix (the caller names what it was doing): one about the input
// names its line ("line 3: ..."), one of the database names the store.
func (s *Store) Import(ctx context.Context, r io.Reader) (Counts, error) {
	var n Counts
	done := s.lockWrites()
	defer done()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return n, s.failed(err)
	}
	defer func() { _ = tx.Rollback() }()
	var present Counts
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM matches), (SELECT count(*) FROM member_stats),
		(SELECT count(*) FROM pair_records), (SELECT count(*) FROM guild_settings), (SELECT count(*) FROM member_ratings),
		(SELECT count(*) FROM tournaments)`).Scan(
		&present.Matches, &present.MemberStats, &present.PairRecords, &present.GuildSettings, &present.MemberRatings,
		&present.Tournaments); err != nil {
		return n, s.failed(err)
	}
	puzzles, err := puzzleRowsPresent(ctx, tx)
	if err != nil {
		return n, s.failed(err)
	}
	if puzzles > 0 {
		return n, errPuzzleRowsPresent
	}
	if present != (Counts{}) {
		return n, fmt.Errorf("the database already holds %d matches, %d member records, %d pair records, %d member ratings, %d tournaments and %d server settings: import into an empty database",
			present.Matches, present.MemberStats, present.PairRecords, present.MemberRatings, present.Tournaments, present.GuildSettings)
	}
	insertMatch, err := tx.PrepareContext(ctx, s.d.Rebind(`INSERT INTO matches
		(id, revision, channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
		 config, actions, phase, message_id, created_at, updated_at,
		 theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook, place, ended_by,
		 rated, rated_capped, ratings, rated_at, tournament_id, tournament_round, tournament_board)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return n, s.failed(err)
	}
	insertStats, err := tx.PrepareContext(ctx, s.d.Rebind(`INSERT INTO member_stats
		(guild_id, user_id, vs_ai, matches, wins, losses, rounds_won, rounds_lost, rounds_drawn, streak, best_streak, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return n, s.failed(err)
	}
	insertPair, err := tx.PrepareContext(ctx, s.d.Rebind(`INSERT INTO pair_records (guild_id, user_id, opponent_id, wins, losses)
		VALUES (?, ?, ?, ?, ?)`))
	if err != nil {
		return n, s.failed(err)
	}
	insertSettings, err := tx.PrepareContext(ctx, s.d.Rebind(`INSERT INTO guild_settings (guild_id, settings, revision, updated_at, updated_by)
		VALUES (?, ?, ?, ?, ?)`))
	if err != nil {
		return n, s.failed(err)
	}
	insertRating, err := tx.PrepareContext(ctx, s.d.Rebind(`INSERT INTO member_ratings (guild_id, user_id, r, rd, sigma, games, best, last_played)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return n, s.failed(err)
	}
	tournaments := tournamentImport{store: s, tx: tx}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	lineNo := 0
	var trailer *Counts
	for sc.Scan() {
		lineNo++
		text := sc.Bytes()
		if len(text) == 0 {
			continue
		}
		fail := func(err error) (Counts, error) {
			return Counts{}, fmt.Errorf("line %d: %w", lineNo, err)
		}
		if lineNo == 1 {
			var h exportHeader
			if err := json.Unmarshal(text, &h); err != nil || h.Version == 0 {
				return fail(errors.New("not a ConnectN export: the first line must be its header, as connectn export writes it"))
			}
			if h.Version > ExportVersion {
				return fail(fmt.Errorf("export format %d is newer than this program's %d", h.Version, ExportVersion))
			}
			continue
		}
		if trailer != nil {
			return fail(errors.New("a line after the trailer"))
		}
		var line exportLine
		dec := json.NewDecoder(bytesReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&line); err != nil {
			return fail(err)
		}
		switch {
		case line.Match != nil:
			m := line.Match
			rw := &row{id: m.ID, revision: m.Revision, channel: []byte(m.ChannelID), guild: []byte(m.GuildID),
				p1ID: []byte(m.Player1ID), p1Name: []byte(m.Player1Name), p2ID: []byte(m.Player2ID), p2Name: []byte(m.Player2Name),
				config: []byte(m.Config), actions: []byte(m.Actions), phase: []byte(m.Phase), message: []byte(m.MessageID),
				created: []byte(m.CreatedAt), updated: []byte(m.UpdatedAt), theme: []byte(m.Theme), ai: []byte(m.AILevel),
				end: []byte(m.EndReason), deadline: []byte(m.DeadlineAt), postSeq: m.PostSeq, postDue: []byte(m.PostDue), webhook: []byte(m.Webhook),
				place: []byte(m.Place), endedBy: []byte(m.EndedBy), rated: m.Rated, ratedCapped: m.RatedCapped, ratings: []byte(m.Ratings)}
			if len(m.Place) == 0 {
				m.Place = json.RawMessage("{}")
			}
			if string(m.Ratings) == "null" {
				m.Ratings = nil
			}
			sess, err := decode(rw, nil)
			if err != nil {
				return fail(fmt.Errorf("match %d: %w", m.ID, err))
			}
			actions, err := encodeActions(nil, sess.Match) // stored in the move text
			if err != nil {
				return fail(fmt.Errorf("match %d: %w", m.ID, err))
			}
			if _, err := parseOptionalTime(m.RatedAt); err != nil {
				return fail(fmt.Errorf("match %d: rated_at: %w: %w", m.ID, sessions.ErrCorrupt, err))
			}
			if _, err := insertMatch.ExecContext(ctx, m.ID, m.Revision, m.ChannelID, m.GuildID, m.Player1ID, m.Player1Name,
				m.Player2ID, m.Player2Name, string(m.Config), actions, m.Phase, m.MessageID, m.CreatedAt, m.UpdatedAt,
				m.Theme, m.AILevel, m.EndReason, m.DeadlineAt, m.PostSeq, m.PostDue, string(m.Webhook), string(m.Place), m.EndedBy,
				m.Rated, m.RatedCapped, string(m.Ratings), m.RatedAt, m.TournamentID, m.TournamentRound, m.TournamentBoard); err != nil {
				return fail(fmt.Errorf("match %d: %w", m.ID, err))
			}
			n.Matches++
		case line.Stats != nil:
			st := line.Stats
			if _, err := insertStats.ExecContext(ctx, st.GuildID, st.UserID, st.VsAI, st.Matches, st.Wins, st.Losses,
				st.RoundsWon, st.RoundsLost, st.RoundsDrawn, st.Streak, st.BestStreak, st.UpdatedAt); err != nil {
				return fail(fmt.Errorf("member record: %w", err))
			}
			n.MemberStats++
		case line.Pair != nil:
			p := line.Pair
			if _, err := insertPair.ExecContext(ctx, p.GuildID, p.UserID, p.OpponentID, p.Wins, p.Losses); err != nil {
				return fail(fmt.Errorf("pair record: %w", err))
			}
			n.PairRecords++
		case line.Settings != nil:
			g := line.Settings
			if _, err := decodeSettings(g.GuildID, g.Settings, g.UpdatedAt, g.UpdatedBy); err != nil {
				return fail(fmt.Errorf("settings of guild %s: %w", g.GuildID, err))
			}
			if _, err := insertSettings.ExecContext(ctx, g.GuildID, string(g.Settings), g.Revision, g.UpdatedAt, g.UpdatedBy); err != nil {
				return fail(fmt.Errorf("settings of guild %s: %w", g.GuildID, err))
			}
			n.GuildSettings++
		case line.Rating != nil:
			r := line.Rating
			if _, err := parseOptionalTime(r.LastPlayed); err != nil {
				return fail(fmt.Errorf("rating of %s in guild %s: last_played: %w: %w", r.UserID, r.GuildID, sessions.ErrCorrupt, err))
			}
			if _, err := insertRating.ExecContext(ctx, r.GuildID, r.UserID, r.R, r.RD, r.Sigma, r.Games, r.Best, r.LastPlayed); err != nil {
				return fail(fmt.Errorf("rating of %s in guild %s: %w", r.UserID, r.GuildID, err))
			}
			n.MemberRatings++
		case line.Tournament != nil, line.Entry != nil, line.Round != nil, line.Pairing != nil:
			if err := tournaments.add(ctx, &line, &n); err != nil {
				return fail(err)
			}
		case line.End != nil:
			trailer = line.End
		default:
			t, row, ok := puzzleLine(&line)
			if !ok {
				return fail(errors.New("neither a match, a member record, a pair record, server settings, a member rating, a tournament's row, a puzzles' row nor the trailer"))
			}
			if err := s.importPuzzleRow(ctx, tx, t, row); err != nil {
				return fail(err)
			}
			*t.count(&n)++
		}

	}
	if err := sc.Err(); err != nil {
		return Counts{}, fmt.Errorf("line %d: %w", lineNo+1, err)
	}
	switch {
	case lineNo == 0:
		return Counts{}, errors.New("empty input: want the JSON lines connectn export writes")
	case trailer == nil:
		return Counts{}, errors.New("the file ends without its trailer line: it was cut short; nothing was imported")
	case *trailer != n:
		return Counts{}, fmt.Errorf("the trailer counts %+v but the file holds %+v; nothing was imported", *trailer, n)
	}
	if err := tournaments.check(ctx); err != nil {
		return Counts{}, err
	}
	if s.d.AfterImport != nil {
		if err := s.d.AfterImport(ctx, tx); err != nil {
			return Counts{}, s.failed(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Counts{}, s.failed(err)
	}
	return n, nil
}
