package bot_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestForgetMe: a member who asks to be forgotten and confirms has their
// match under way end as their forfeit (its board says so), their
// challenge called off, and no row of the database naming them afterwards;
// the other members keep their records. Cancel removes nothing; a click
// forgets the one who clicks, whoever's prompt it was.
func TestForgetMe(t *testing.T) {
	e := newEnv(t)
	// A finished match, a match under way in a second channel, a challenge
	// in a third.
	e.startMatch(map[string]int{"wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1", "2", "1")
	second := &place{e: e, channel: "1300000000000000002"}
	second.slash(carol, "challenge", discordtest.UserArg("opponent", alice))
	second.click(alice, second.board(), "Accept")
	second.play(carol, alice, "3")
	third := &place{e: e, channel: "1300000000000000003"}
	third.slash(alice, "challenge", discordtest.UserArg("opponent", bob))

	prompt := e.send(slash(alice, "forget-me"))
	mustPrivate(t, prompt, "removes everything Connect N keeps about you")
	if got := labels(prompt.Data.Components); got != "Forget me Cancel" {
		t.Fatalf("prompt buttons %q", got)
	}
	msg := &discordgo.Message{ID: "1700000000000009999", Components: prompt.Data.Components, Flags: discordgo.MessageFlagsEphemeral}
	mustContain(t, "cancel", text(e.click(alice, msg, "Cancel")), "Nothing was removed.")
	if st := text(e.send(slash(alice, "stats"))); !strings.Contains(st, "**Wins:** 1") {
		t.Fatalf("Cancel removed the record:\n%s", st)
	}

	resp := e.click(alice, msg, "Forget me")
	mustUpdate(t, resp)
	mustContain(t, "done", text(resp), "Connect N keeps nothing about you any more.")
	mustContain(t, "the match under way", messageText(second.board()), "🏳️", "**Carol** wins by forfeit")
	mustContain(t, "the challenge", messageText(third.board()), "withdrew it")

	if st := text(e.send(slash(alice, "stats"))); !strings.Contains(st, "No match against members finished yet.") {
		t.Errorf("alice's record after forget-me:\n%s", st)
	}
	if st := text(e.send(slash(bob, "stats"))); !strings.Contains(st, "**Losses:** 1") {
		t.Errorf("bob lost his record:\n%s", st)
	}
	// No row of any table names alice; the row of the stats above (her
	// own, read-only) was never written.
	db, err := sql.Open("sqlite", e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if where := rowsNaming(t, db, aliceID); len(where) > 0 {
		t.Fatalf("rows still naming the forgotten member: %v", where)
	}
	if where := rowsNaming(t, db, bobID); len(where) == 0 {
		t.Fatal("no row names bob: the scan finds nothing")
	}
}

// rowsNaming returns "table: row" for every row of every table of db
// that holds id in any column.
func rowsNaming(t *testing.T, db *sql.DB, id string) []string {
	t.Helper()
	ctx := context.Background()
	tables, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	var out []string
	for _, table := range names {
		rows, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for k := range vals {
				ptrs[k] = &vals[k]
			}
			rows.Scan(ptrs...)
			for k, v := range vals {
				var s string
				switch v := v.(type) {
				case string:
					s = v
				case []byte:
					s = string(v)
				}
				if strings.Contains(s, id) {
					out = append(out, table+"."+cols[k])
				}
			}
		}
		rows.Close()
	}
	return out
}
