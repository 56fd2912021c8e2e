package sessions_test

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

var (
	alice = sessions.Member{ID: "100000000000000001", Name: "Alice"}
	bob   = sessions.Member{ID: "100000000000000002", Name: "Bob"}
	carol = sessions.Member{ID: "100000000000000003", Name: "Carol"}
)

func TestPhase(t *testing.T) {
	tests := []struct {
		phase      sessions.Phase
		wantActive bool
		wantValid  bool
	}{
		{phase: sessions.PhaseChallenge, wantActive: true, wantValid: true},
		{phase: sessions.PhasePlaying, wantActive: true, wantValid: true},
		{phase: sessions.PhaseFinished, wantValid: true},
		{phase: sessions.PhaseCancelled, wantValid: true},
		{phase: ""},
		{phase: "Playing"},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			if got := tt.phase.Active(); got != tt.wantActive {
				t.Errorf("Active() = %t, want %t", got, tt.wantActive)
			}
			if got := tt.phase.Valid(); got != tt.wantValid {
				t.Errorf("Valid() = %t, want %t", got, tt.wantValid)
			}
		})
	}
}

func TestPlayerOfAndMember(t *testing.T) {
	s := &sessions.Session{Players: [2]sessions.Member{alice, bob}}
	tests := []struct {
		name       string
		userID     string
		wantPlayer game.Player
		wantMember sessions.Member
	}{
		{name: "challenger", userID: alice.ID, wantPlayer: game.Player1, wantMember: alice},
		{name: "opponent", userID: bob.ID, wantPlayer: game.Player2, wantMember: bob},
		{name: "bystander", userID: carol.ID, wantPlayer: game.NoPlayer},
		{name: "empty id", userID: "", wantPlayer: game.NoPlayer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.PlayerOf(tt.userID)
			if got != tt.wantPlayer {
				t.Errorf("PlayerOf(%q) = %v, want %v", tt.userID, got, tt.wantPlayer)
			}
			if m := s.Member(got); m != tt.wantMember {
				t.Errorf("Member(%v) = %+v, want %+v", got, m, tt.wantMember)
			}
		})
	}
}

func TestCloneOwned(t *testing.T) {
	// body stands for an interaction's request body, which the bot's
	// strings point into.
	body := []byte("chan-1 guild-1 100000000000000001 Alice 100000000000000002 Bob msg-1 app-1 token-1 token-2 en-GB")
	view := func(s string) string {
		i := strings.Index(string(body), s)
		return unsafe.String(&body[i], len(s))
	}
	inBody := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&body[0]))
		return s != "" && p >= start && p < start+uintptr(len(body))
	}
	m, _ := game.NewMatch(game.DefaultConfig())
	s := &sessions.Session{ID: 1, ChannelID: view("chan-1"), GuildID: view("guild-1"), Match: m, Phase: sessions.PhasePlaying,
		Players:   [2]sessions.Member{{ID: view("100000000000000001"), Name: view("Alice")}, {ID: view("100000000000000002"), Name: view("Bob")}},
		MessageID: view("msg-1"), Webhook: sessions.Webhook{AppID: view("app-1"), Token: view("token-1"), Message: "@original"},
		Place: sessions.Place{Locale: view("en-GB")}}
	strs := func(s *sessions.Session) map[string]string {
		return map[string]string{"channel": s.ChannelID, "guild": s.GuildID, "player 1": s.Players[0].ID, "name 1": s.Players[0].Name,
			"player 2": s.Players[1].ID, "name 2": s.Players[1].Name, "message": s.MessageID, "app": s.Webhook.AppID,
			"token": s.Webhook.Token, "locale": s.Place.Locale}
	}

	first := s.CloneOwned(nil)
	for name, v := range strs(first) {
		if inBody(v) {
			t.Errorf("CloneOwned(nil): %s %q points into the body", name, v)
		}
	}
	if !reflect.DeepEqual(strs(first), strs(s)) || first.Match == s.Match {
		t.Errorf("CloneOwned(nil) = %v, want a deep copy of %v", strs(first), strs(s))
	}

	s.Webhook.Token = view("token-2") // the next click
	next := s.CloneOwned(first)
	for name, v := range strs(next) {
		if inBody(v) {
			t.Errorf("CloneOwned(prev): %s %q points into the body", name, v)
		}
	}
	if next.Webhook.Token != "token-2" {
		t.Errorf("CloneOwned(prev) token = %q, want token-2", next.Webhook.Token)
	}
	if unsafe.StringData(next.ChannelID) != unsafe.StringData(first.ChannelID) || unsafe.StringData(next.Players[1].Name) != unsafe.StringData(first.Players[1].Name) {
		t.Error("CloneOwned(prev) copied a string equal to prev's instead of sharing prev's")
	}
}
