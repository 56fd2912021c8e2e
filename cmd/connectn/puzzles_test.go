package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/puzzle"
)

func puzzlesRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"puzzles"}, args...), deps{stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

// TestPuzzlesGenerate makes three puzzles on a small board: the first line
// records the command, each other line is a puzzle, and the summary on
// standard error says how many per minute.
func TestPuzzlesGenerate(t *testing.T) {
	code, out, errOut := puzzlesRun(t, "generate", "-rows", "5", "-columns", "6", "-n", "3", "-seed", "2", "-table", "4", "-max-empty", "16")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := "# connectn puzzles generate -rows 5 -columns 6 -connect 4 -n 3 -seed 2 -max-empty 16"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	ps, err := puzzle.Read(strings.NewReader(out))
	if err != nil || len(ps) != 3 || len(lines) != 4 {
		t.Fatalf("%d lines, %d puzzles, %v:\n%s", len(lines), len(ps), err, out)
	}
	for _, p := range ps {
		if p.Config.Rows != 5 || p.Config.Columns != 6 || p.Source.Seed != 2 {
			t.Errorf("puzzle %s", p.Format())
		}
	}
	if !strings.Contains(errOut, "3 puzzles on 5x6 (rows x columns), connect 4") || !strings.Contains(errOut, " per minute") {
		t.Errorf("summary %q", errOut)
	}
}

// TestPuzzlesGenerateOut writes to a file, which appears whole at the end,
// with no temporary file left beside it.
func TestPuzzlesGenerateOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.txt")
	code, stdout, errOut := puzzlesRun(t, "generate", "-rows", "5", "-columns", "6", "-n", "2", "-table", "4", "-max-empty", "16", "-out", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := puzzle.Read(bytes.NewReader(data)); err != nil || len(ps) != 2 {
		t.Errorf("the file holds %d puzzles, %v", len(ps), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want the output alone", len(entries))
	}
}

func TestPuzzlesRefuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no command", args: nil, want: "Usage: connectn puzzles"},
		{name: "unknown command", args: []string{"solve"}, want: `unknown command "solve"`},
		{name: "board too large", args: []string{"generate", "-rows", "8", "-columns", "8"}, want: "needs 72 bits"},
		{name: "bad connect", args: []string{"generate", "-connect", "9"}, want: "connect"},
		{name: "no puzzle", args: []string{"generate", "-n", "0"}, want: "-n 0"},
		{name: "small table", args: []string{"generate", "-table", "1"}, want: "-table 1"},
		{name: "no empty cell", args: []string{"generate", "-max-empty", "0"}, want: "-max-empty 0"},
		{name: "no budget", args: []string{"generate", "-budget", "0s"}, want: "-budget"},
		{name: "an argument", args: []string{"generate", "x"}, want: `unexpected argument "x"`},
		{name: "unknown flag", args: []string{"generate", "-x"}, want: "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := puzzlesRun(t, tt.args...)
			if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, exitUsage, tt.want)
			}
		})
	}
	code, out, _ := puzzlesRun(t, "generate", "-h")
	if code != 0 || !strings.HasPrefix(out, "Usage: connectn puzzles generate [flags]") {
		t.Errorf("generate -h: exit %d, %q", code, firstLine(out))
	}
}
