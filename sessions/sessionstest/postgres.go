package sessionstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/connectn/connectn/sessions/postgres"
)

// PostgresSchema creates a schema of its own for one test in the
// PostgreSQL database at server (a postgres:// URL), and returns server's
// URL with search_path set to it, so that everything the test creates
// lands there. The schema is dropped, with all it holds, when the test
// ends.
func PostgresSchema(tb testing.TB, server string) string {
	tb.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "connectn_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := postgres.OpenDB(ctx, server)
	if err != nil {
		tb.Fatalf("PostgreSQL at CONNECTN_TEST_POSTGRES: %v", err)
	}
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		_ = admin.Close()
		tb.Fatalf("PostgreSQL at CONNECTN_TEST_POSTGRES: create schema: %v", err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("drop the test schema %s: %v", schema, err)
		}
	})
	// Appended as is: re-encoding the query would turn %20 into +, which
	// libpq-style parameters (options=-c ...) do not read as a space.
	u, err := url.Parse(server)
	if err != nil {
		tb.Fatal(err)
	}
	sep := "?"
	if u.RawQuery != "" || u.ForceQuery {
		sep = "&"
	}
	return server + sep + "search_path=" + schema
}
