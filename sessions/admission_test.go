package sessions_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/connectn/connectn/sessions"
)

func TestAdmit(t *testing.T) {
	now := time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)
	role, hour := "900", time.Hour
	challenger := sessions.Entrant{Member: alice, Roles: []string{role}}
	opponent := &sessions.Entrant{Member: bob, Roles: []string{role}}
	admission := func(edit func(*sessions.Admission)) sessions.Admission {
		a := sessions.Admission{ChannelID: "chan-1", Challenger: challenger, Opponent: opponent, Rows: 6, Columns: 7, Connect: 4,
			LastChallenge: func() (time.Time, error) { return now.Add(-2 * hour), nil }}
		if edit != nil {
			edit(&a)
		}
		return a
	}
	broken := errors.New("store down")
	tests := []struct {
		name    string
		gs      sessions.GuildSettings
		a       sessions.Admission
		want    sessions.Reason // zero: admitted
		args    []any
		wantErr error
	}{
		{name: "no rules", a: admission(nil)},
		{name: "a line longer than the board", a: admission(func(a *sessions.Admission) { a.Rows, a.Columns, a.Connect = 4, 5, 6 }),
			want: sessions.ReasonConnectTooLong, args: []any{"Connect", 6, "Rows", 4, "Columns", 5, "Max", 5}},
		{name: "a line as long as a side", a: admission(func(a *sessions.Admission) { a.Rows, a.Columns, a.Connect = 4, 6, 6 })},
		{name: "another channel", gs: sessions.GuildSettings{Channels: []string{"chan-2", "chan-3"}}, a: admission(nil),
			want: sessions.ReasonChannelNotAllowed, args: []any{"Channels", sessions.Channels{"chan-2", "chan-3"}}},
		{name: "an allowed channel", gs: sessions.GuildSettings{Channels: []string{"chan-1"}}, a: admission(nil)},
		{name: "the challenger without the role", gs: sessions.GuildSettings{Role: &role},
			a: admission(func(a *sessions.Admission) { a.Challenger.Roles = nil }), want: sessions.ReasonRoleRequired, args: []any{"Role", sessions.Role(role)}},
		{name: "the opponent without the role", gs: sessions.GuildSettings{Role: &role},
			a:    admission(func(a *sessions.Admission) { a.Opponent = &sessions.Entrant{Member: bob} }),
			want: sessions.ReasonRoleOpponent, args: []any{"Opponent", bob, "Role", sessions.Role(role)}},
		{name: "no opponent named, the role set", gs: sessions.GuildSettings{Role: &role}, a: admission(func(a *sessions.Admission) { a.Opponent = nil })},
		{name: "within the cooldown", gs: sessions.GuildSettings{Cooldown: ptr(3 * hour)}, a: admission(nil),
			want: sessions.ReasonCooldown, args: []any{"When", now.Add(hour), "Cooldown", 3 * hour}},
		{name: "the cooldown just over", gs: sessions.GuildSettings{Cooldown: ptr(2 * hour)}, a: admission(nil)},
		{name: "never challenged", gs: sessions.GuildSettings{Cooldown: ptr(3 * hour)},
			a: admission(func(a *sessions.Admission) { a.LastChallenge = func() (time.Time, error) { return time.Time{}, nil } })},
		{name: "no cooldown reads nothing", a: admission(func(a *sessions.Admission) {
			a.LastChallenge = func() (time.Time, error) { t.Error("LastChallenge read without a cooldown"); return now, nil }
		})},
		{name: "the store fails", gs: sessions.GuildSettings{Cooldown: ptr(hour)},
			a: admission(func(a *sessions.Admission) {
				a.LastChallenge = func() (time.Time, error) { return time.Time{}, broken }
			}), wantErr: broken},
		{name: "the channel first", gs: sessions.GuildSettings{Channels: []string{"chan-2"}, Role: &role},
			a: admission(func(a *sessions.Admission) { a.Challenger.Roles = nil }), want: sessions.ReasonChannelNotAllowed,
			args: []any{"Channels", sessions.Channels{"chan-2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sessions.Admit(tt.gs, tt.a, now)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
			case tt.want == sessions.Reason{}:
				if err != nil {
					t.Fatalf("got %v, want admitted", err)
				}
			default:
				r, ok := sessions.AsRefusal(err)
				if !ok || r.Reason != tt.want {
					t.Fatalf("got %v, want the refusal %s", err, tt.want)
				}
				if got, want := describeArgs(r.Args), describeArgs(tt.args); got != want {
					t.Errorf("args %s, want %s", got, want)
				}
			}
		})
	}
}

func TestSettingsBounds(t *testing.T) {
	if err := sessions.CheckBoardSettings(6, 7, 8); !sessions.IsRefusal(err, sessions.ReasonSettingsConnect) {
		t.Errorf("a default line of 8 on 6x7: %v, want settings_connect", err)
	}
	if err := sessions.CheckBoardSettings(6, 8, 8); err != nil {
		t.Errorf("a default line of 8 on 6x8: %v", err)
	}
	for _, tt := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{{"90s", 90 * time.Second, true}, {" 5m ", 5 * time.Minute, true}, {"24h", 24 * time.Hour, true}, {"29s", 0, false},
		{"25h", 0, false}, {"five minutes", 0, false}, {"", 0, false}} {
		got, err := sessions.ParseDuration("turn-timeout", tt.v, sessions.MinTimeout, sessions.MaxTimeout)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v (ok %t)", tt.v, got, err, tt.want, tt.ok)
		}
		if err != nil && !sessions.IsRefusal(err, sessions.ReasonDuration) {
			t.Errorf("ParseDuration(%q): %v, want the refusal duration", tt.v, err)
		}
	}
	if !sessions.RatedCapReached(sessions.RatedPerDay) || sessions.RatedCapReached(sessions.RatedPerDay-1) {
		t.Errorf("the rated cap is not reached at %d rated matches a day", sessions.RatedPerDay)
	}
}

func ptr[T any](v T) *T { return &v }

// describeArgs writes a refusal's arguments for comparison.
func describeArgs(args []any) string { return fmt.Sprintf("%#v", args) }
