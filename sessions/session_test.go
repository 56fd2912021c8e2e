package sessions_test

import (
	"testing"

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
