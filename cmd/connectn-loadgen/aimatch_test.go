package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAIMatches plays a few matches against the bot beside human ones for
// a moment, and checks what the command reports: the bot answered, never
// later than Discord's window, and nothing failed.
func TestAIMatches(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, 2*time.Minute, "-spawn", bin, "-matches", "2", "-faults", "0", "-ai-matches", "2",
		"-ai-boards", "7x6:perfect,12x12:hard", "-duration", "3s", "-pings=false", "-seed", "1")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	if n := number(t, out, `AI moves\s+(\d+)`); n == 0 {
		t.Errorf("no AI move reported:\n%s", out)
	}
	if n := number(t, out, `answered later than 3s: (\d+)`); n != 0 {
		t.Errorf("%d answers later than 3s:\n%s", n, out)
	}
	if strings.Contains(out, "errors:") {
		t.Errorf("errors reported:\n%s", out)
	}
	if !strings.Contains(out, "human moves: alone p50") || !strings.Contains(out, "2 moves+AI:") {
		t.Errorf("no human moves beside the AI's reported:\n%s", out)
	}
}

func TestParseAIBoards(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []aiBoard
		wantErr bool
	}{
		{name: "two boards", in: "7x6:perfect, 12x12:hard", want: []aiBoard{{rows: 6, columns: 7, level: "perfect"}, {rows: 12, columns: 12, level: "hard"}}},
		{name: "no level", in: "7x6", wantErr: true},
		{name: "no size", in: "7:hard", wantErr: true},
		{name: "too small", in: "3x6:easy", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAIBoards(tt.in)
			if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
				t.Errorf("parseAIBoards(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
