package sessions_test

import (
	"testing"
	"time"

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

func TestWebhookValid(t *testing.T) {
	t0 := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	w := sessions.Webhook{AppID: "app", Token: "tok", Message: "@original", At: t0}
	tests := []struct {
		name string
		w    sessions.Webhook
		at   time.Time
		want bool
	}{
		{"fresh", w, t0.Add(time.Minute), true},
		{"a minute to spare", w, t0.Add(13*time.Minute + 59*time.Second), true},
		{"too close to expiry", w, t0.Add(14 * time.Minute), false},
		{"expired", w, t0.Add(time.Hour), false},
		{"no token", sessions.Webhook{AppID: "app", Message: "@original", At: t0}, t0, false},
		{"no app", sessions.Webhook{Token: "tok", Message: "@original", At: t0}, t0, false},
		{"no message yet (a follow-up to post)", sessions.Webhook{AppID: "app", Token: "tok", At: t0}, t0, true},
	}
	for _, tt := range tests {
		if got := tt.w.Valid(tt.at); got != tt.want {
			t.Errorf("%s: Valid() = %t, want %t", tt.name, got, tt.want)
		}
	}
}
