package console

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
)

func TestParseColumn(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		columns    int
		zero       bool
		wantColumn int
		wantQuit   bool
		wantErr    string // the message shown, "" when accepted
	}{
		{name: "first column", line: "1", columns: 7, wantColumn: 0},
		{name: "last column", line: "7", columns: 7, wantColumn: 6},
		{name: "spaces trimmed", line: "  3 \t", columns: 7, wantColumn: 2},
		{name: "carriage return trimmed", line: "3\r", columns: 7, wantColumn: 2},
		{name: "two digits", line: "10", columns: 12, wantColumn: 9},
		{name: "zero-based first", line: "0", columns: 7, zero: true, wantColumn: 0},
		{name: "zero-based last", line: "6", columns: 7, zero: true, wantColumn: 6},
		{name: "zero-based two digits", line: "11", columns: 12, zero: true, wantColumn: 11},
		{name: "q", line: "q", columns: 7, wantQuit: true},
		{name: "Q", line: "Q", columns: 7, wantQuit: true},
		{name: "quit", line: "quit", columns: 7, wantQuit: true},
		{name: "QuIt with spaces", line: " QuIt ", columns: 7, wantQuit: true},
		{name: "empty", line: "", columns: 7,
			wantErr: "Nothing was entered: enter a column number from 1 to 7, or q to quit."},
		{name: "blank", line: "   ", columns: 7,
			wantErr: "Nothing was entered: enter a column number from 1 to 7, or q to quit."},
		{name: "letters", line: "abc", columns: 7,
			wantErr: `"abc" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "quitter is not quit", line: "quitter", columns: 7,
			wantErr: `"quitter" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "digits and letters", line: "3a", columns: 7,
			wantErr: `"3a" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "two numbers", line: "1 2", columns: 7,
			wantErr: `"1 2" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "non-ASCII digit", line: "٣", columns: 7,
			wantErr: `"٣" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "control character escaped", line: "\x1b[2J", columns: 7,
			wantErr: `"\x1b[2J" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "long text cut", line: strings.Repeat("a", 50), columns: 7,
			wantErr: `"aaaaaaaaaaaaaaaaaaaa..." is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "lone sign", line: "-", columns: 7,
			wantErr: `"-" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "plus sign", line: "+3", columns: 7,
			wantErr: `"+3" is not a column number: write it without a sign, from 1 to 7.`},
		{name: "minus sign", line: "-1", columns: 7,
			wantErr: `"-1" is not a column number: write it without a sign, from 1 to 7.`},
		{name: "minus zero", line: "-0", columns: 7, zero: true,
			wantErr: `"-0" is not a column number: write it without a sign, from 0 to 6.`},
		{name: "decimal", line: "2.5", columns: 7,
			wantErr: `"2.5" is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "decimal comma", line: "2,5", columns: 7,
			wantErr: `"2,5" is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "decimal without whole part", line: ".5", columns: 7,
			wantErr: `".5" is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "decimal point at the end", line: "3.", columns: 7,
			wantErr: `"3." is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "whole decimal", line: "3.0", columns: 7,
			wantErr: `"3.0" is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "signed decimal", line: "-2.5", columns: 7,
			wantErr: `"-2.5" is not a column number: columns are whole numbers from 1 to 7.`},
		{name: "lone point", line: ".", columns: 7,
			wantErr: `"." is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "two points", line: "1.2.3", columns: 7,
			wantErr: `"1.2.3" is not a column number: enter a number from 1 to 7, or q to quit.`},
		{name: "leading zeros", line: "007", columns: 7,
			wantErr: `"007" is not a column number: write it without leading zeros.`},
		{name: "leading zero", line: "01", columns: 7,
			wantErr: `"01" is not a column number: write it without leading zeros.`},
		{name: "leading zero zero-based", line: "01", columns: 7, zero: true,
			wantErr: `"01" is not a column number: write it without leading zeros.`},
		{name: "double zero zero-based", line: "00", columns: 7, zero: true,
			wantErr: `"00" is not a column number: write it without leading zeros.`},
		{name: "zero one-based", line: "0", columns: 7,
			wantErr: "Column 0 does not exist: enter a number from 1 to 7."},
		{name: "past the last", line: "8", columns: 7,
			wantErr: "Column 8 does not exist: enter a number from 1 to 7."},
		{name: "past the last zero-based", line: "7", columns: 7, zero: true,
			wantErr: "Column 7 does not exist: enter a number from 0 to 6."},
		{name: "too large for an int", line: "99999999999999999999", columns: 7,
			wantErr: "Column 99999999999999999999 does not exist: enter a number from 1 to 7."},
		{name: "huge number cut", line: strings.Repeat("9", 30), columns: 7,
			wantErr: "Column 99999999999999999999... does not exist: enter a number from 1 to 7."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			column, quit, err := parseColumn(tc.line, tc.columns, tc.zero)
			if tc.wantErr != "" {
				var ie *inputError
				if !errors.As(err, &ie) {
					t.Fatalf("parseColumn(%q) error = %v, want an *inputError", tc.line, err)
				}
				if got := ie.text(locale.English()); got != tc.wantErr {
					t.Errorf("parseColumn(%q) error = %q, want %q", tc.line, got, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseColumn(%q) error = %v, want nil", tc.line, err)
			}
			if column != tc.wantColumn || quit != tc.wantQuit {
				t.Errorf("parseColumn(%q) = %d, %v; want %d, %v", tc.line, column, quit, tc.wantColumn, tc.wantQuit)
			}
		})
	}
}

// TestParseColumnMessagesDistinct checks that each cause of refusal has its
// own message.
func TestParseColumnMessagesDistinct(t *testing.T) {
	causes := map[string]string{
		"empty": "", "letters": "abc", "sign": "+3", "decimal": "2.5",
		"leading zeros": "007", "out of range": "8",
	}
	seen := map[string]string{}
	for cause, line := range causes {
		_, _, err := parseColumn(line, 7, false)
		if err == nil {
			t.Fatalf("parseColumn(%q) accepted, want refused for %s", line, cause)
		}
		// Compare the messages without the quoted input.
		msg := regexp.MustCompile(`^("[^"]*"|Column \d+) `).ReplaceAllString(err.(*inputError).text(locale.English()), "")
		if other, ok := seen[msg]; ok {
			t.Errorf("%s and %s share the message %q", cause, other, msg)
		}
		seen[msg] = cause
	}
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		line      string
		wantAgain bool
		wantErr   bool
	}{
		{line: "y", wantAgain: true},
		{line: "Y", wantAgain: true},
		{line: "yes", wantAgain: true},
		{line: " YeS \t", wantAgain: true},
		{line: "n"},
		{line: "N"},
		{line: "no"},
		{line: " NO "},
		{line: "", wantErr: true},
		{line: "maybe", wantErr: true},
		{line: "yes please", wantErr: true},
		{line: "ye", wantErr: true},
		{line: "nope", wantErr: true},
		{line: "q", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			again, err := parseAnswer(tc.line)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseAnswer(%q) error = %v, want error %v", tc.line, err, tc.wantErr)
			}
			if again != tc.wantAgain {
				t.Errorf("parseAnswer(%q) = %v, want %v", tc.line, again, tc.wantAgain)
			}
		})
	}
}

func TestBoardLayout(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		first   int
		want    string
	}{
		{
			name:    "narrow, from 1",
			picture: "...\n.x.\nxoo",
			first:   1,
			want:    "123\n...\n.x.\nxoo\n123\n",
		},
		{
			name:    "ten columns from 0 stay narrow",
			picture: "x.........",
			first:   0,
			want:    "0123456789\nx.........\n0123456789\n",
		},
		{
			name:    "ten columns from 1 are wide",
			picture: "x........o",
			first:   1,
			want:    " 1  2  3  4  5  6  7  8  9 10\n x  .  .  .  .  .  .  .  .  o\n 1  2  3  4  5  6  7  8  9 10\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := game.ParseBoard(tc.picture)
			if err != nil {
				t.Fatal(err)
			}
			if got := (painter{}).board(b, nil, tc.first); got != tc.want {
				t.Errorf("board =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestBoardHeaderAligned checks, for every width up to game.MaxSize, that each
// column number ends exactly above its cells, in both numberings.
func TestBoardHeaderAligned(t *testing.T) {
	for _, first := range []int{0, 1} {
		for columns := 1; columns <= game.MaxSize; columns++ {
			b, err := game.NewBoard(1, columns)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split((painter{}).board(b, nil, first), "\n")
			header, row := lines[0], lines[1]
			if len(header) != len(row) || header != lines[2] {
				t.Fatalf("%d columns from %d: header %q and row %q differ in width", columns, first, header, row)
			}
			if !strings.Contains(header, " ") { // narrow: one character per column
				want := ""
				for c := range columns {
					want += strconv.Itoa(first + c)
				}
				if header != want || len(row) != columns {
					t.Fatalf("%d columns from %d: narrow header %q, row %q", columns, first, header, row)
				}
				continue
			}
			for i := range len(row) {
				numberEnds := header[i] != ' ' && (i+1 == len(header) || header[i+1] == ' ')
				if (row[i] == '.') != numberEnds {
					t.Fatalf("%d columns from %d: cell and number ends differ at %d:\n%s\n%s", columns, first, i, header, row)
				}
			}
			for c, field := range strings.Fields(header) {
				if field != strconv.Itoa(first+c) {
					t.Fatalf("%d columns from %d: number %d is %q, want %d", columns, first, c, field, first+c)
				}
			}
		}
	}
}

func TestColorEnabled(t *testing.T) {
	env := func(noColor string) func(string) string {
		return func(key string) string {
			switch key {
			case "NO_COLOR":
				return noColor
			case "TERM":
				return "xterm-256color"
			}
			return ""
		}
	}
	regular, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if ColorEnabled(regular, env("")) {
		t.Error("ColorEnabled(regular file) = true, want false")
	}
	if ColorEnabled(nil, env("")) {
		t.Error("ColorEnabled(nil) = true, want false")
	}
	device, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer device.Close()
	if fi, err := device.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	if !ColorEnabled(device, env("")) {
		t.Errorf("ColorEnabled(%s, NO_COLOR unset) = false, want true", os.DevNull)
	}
	if ColorEnabled(device, env("1")) {
		t.Errorf("ColorEnabled(%s, NO_COLOR=1) = true, want false", os.DevNull)
	}
	dumb := func(key string) string {
		if key == "TERM" {
			return "dumb"
		}
		return ""
	}
	if ColorEnabled(device, dumb) {
		t.Errorf("ColorEnabled(%s, TERM=dumb) = true, want false", os.DevNull)
	}
}

// TestColorOnlyAddsEscapes checks that colour changes nothing but the ANSI
// escape codes.
func TestColorOnlyAddsEscapes(t *testing.T) {
	input := "1\n2\n1\n2\n1\n2\n1\nq\ny\nn\n"
	var plain, colored bytes.Buffer
	Main(nil, strings.NewReader(input), &plain, io.Discard, false, noEnv)
	Main(nil, strings.NewReader(input), &colored, io.Discard, true, noEnv)
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(colored.String(), "")
	if stripped != plain.String() {
		t.Errorf("coloured output without its escapes differs from plain output:\n%s", firstDifference(stripped, plain.String()))
	}
	if !strings.Contains(colored.String(), ansiRed+"x"+ansiReset) || !strings.Contains(colored.String(), ansiYellow+"o"+ansiReset) {
		t.Error("coloured output lacks a red x or a yellow o")
	}
}

// TestUsageNamesEveryFlag keeps the hand-written usage in step with the
// flags that are defined, both ways.
func TestUsageNamesEveryFlag(t *testing.T) {
	var usage bytes.Buffer
	fs, _ := newFlagSet(&usage, locale.English())
	fs.Usage()
	described := regexp.MustCompile(`(?m)^  -([\w-]+) `).FindAllStringSubmatch(usage.String(), -1)
	defined := map[string]bool{"h": true}
	fs.VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
	for name := range defined {
		if !strings.Contains(usage.String(), "\n  -"+name+" ") {
			t.Errorf("usage does not describe -%s", name)
		}
	}
	for _, m := range described {
		if !defined[m[1]] {
			t.Errorf("usage describes -%s, which is not defined", m[1])
		}
	}
	if len(described) != len(defined) {
		t.Errorf("usage describes %d flags, %d are defined", len(described), len(defined))
	}
}

// TestLongLine checks that a line longer than maxLine is cut, not fatal.
func TestLongLine(t *testing.T) {
	input := strings.Repeat("7", 100_000) + "\nq\nn\n"
	var stdout bytes.Buffer
	if status := Main(nil, strings.NewReader(input), &stdout, io.Discard, false, noEnv); status != exitOK {
		t.Fatalf("Main = %d, want %d", status, exitOK)
	}
	if want := "Column 77777777777777777777... does not exist"; !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %q", want)
	}
	if !strings.Contains(stdout.String(), "Thanks for playing") {
		t.Error("the session did not go on after the long line")
	}
}

func TestHelpOnStdout(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var stdout, stderr bytes.Buffer
		if status := Main([]string{"-rows", "5", arg}, strings.NewReader(""), &stdout, &stderr, false, noEnv); status != exitOK {
			t.Errorf("%s: Main = %d, want %d", arg, status, exitOK)
		}
		if !strings.HasPrefix(stdout.String(), "Usage: connectn play [flags]") || !strings.Contains(stdout.String(), "-columns N") {
			t.Errorf("%s: stdout = %q, want the usage", arg, stdout.String())
		}
		if stderr.Len() != 0 {
			t.Errorf("%s: stderr = %q, want nothing", arg, stderr.String())
		}
	}
}

func TestIOErrors(t *testing.T) {
	t.Run("read error", func(t *testing.T) {
		var stderr bytes.Buffer
		in := iotest.ErrReader(errors.New("disk on fire"))
		if status := Main(nil, in, io.Discard, &stderr, false, noEnv); status != exitIO {
			t.Errorf("Main = %d, want %d", status, exitIO)
		}
		if !strings.Contains(stderr.String(), "disk on fire") {
			t.Errorf("stderr = %q, want the read error", stderr.String())
		}
	})
	t.Run("write error", func(t *testing.T) {
		var stderr bytes.Buffer
		if status := Main(nil, strings.NewReader("4\n"), failingWriter{}, &stderr, false, noEnv); status != exitIO {
			t.Errorf("Main = %d, want %d", status, exitIO)
		}
		if !strings.Contains(stderr.String(), "pipe closed") {
			t.Errorf("stderr = %q, want the write error", stderr.String())
		}
	})
	t.Run("broken pipe", func(t *testing.T) {
		var stderr bytes.Buffer
		w := brokenPipe{}
		if status := Main(nil, strings.NewReader("4\n"), w, &stderr, false, noEnv); status != exitOK {
			t.Errorf("Main = %d, want %d", status, exitOK)
		}
		if stderr.Len() != 0 {
			t.Errorf("stderr = %q, want nothing", stderr.String())
		}
	})
}

// brokenPipe fails every write as a pipe whose reader has gone does.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("pipe closed") }

// noEnv is an environment with no variable set: English.
func noEnv(string) string { return "" }

// env returns a getenv of vars.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// TestLanguage: -lang, then LC_ALL, LC_MESSAGES and LANG, in that order,
// choose the language; a variable naming a language the catalog lacks
// means English, a -lang naming one is a bad flag.
func TestLanguage(t *testing.T) {
	welcome := func(lang string) string { return locale.Default().Localizer(lang).T("console_welcome") }
	if welcome("es-ES") == welcome("en") || welcome("zh-CN") == welcome("en") {
		t.Fatal("the catalog has no Spanish or Chinese console messages to test with")
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // the language of the welcome
	}{
		{"nothing set", nil, nil, "en"},
		{"LANG", nil, map[string]string{"LANG": "es_ES.UTF-8"}, "es-ES"},
		{"LC_MESSAGES over LANG", nil, map[string]string{"LANG": "es_ES.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh-CN"},
		{"LC_ALL over both", nil, map[string]string{"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LC_ALL": "es_MX.UTF-8"}, "es-ES"},
		{"C means English", nil, map[string]string{"LANG": "es_ES.UTF-8", "LC_ALL": "C"}, "en"},
		{"a language the catalog lacks means English", nil, map[string]string{"LANG": "sw_KE.UTF-8"}, "en"},
		{"-lang over the environment", []string{"-lang", "zh-CN"}, map[string]string{"LC_ALL": "es_ES.UTF-8"}, "zh-CN"},
		{"-lang= after another flag", []string{"-rows", "5", "-lang=es-419"}, nil, "es-419"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if status := Main(tt.args, strings.NewReader("q\nn\n"), &stdout, &stderr, false, env(tt.env)); status != exitOK {
				t.Fatalf("Main = %d, want %d; stderr: %s", status, exitOK, stderr.String())
			}
			if got := strings.SplitN(stdout.String(), "\n", 2)[0]; got != welcome(tt.want) {
				t.Errorf("first line %q, want the welcome in %s, %q", got, tt.want, welcome(tt.want))
			}
		})
	}
}

// TestLanguageUnknown: a -lang the catalog has no language for is a bad
// flag value (status 2), told in the environment's language with the
// languages there are.
func TestLanguageUnknown(t *testing.T) {
	var stdout, stderr bytes.Buffer
	status := Main([]string{"-lang", "xx"}, strings.NewReader(""), &stdout, &stderr, false, env(map[string]string{"LANG": "es_ES.UTF-8"}))
	if status != exitUsage {
		t.Fatalf("Main = %d, want %d", status, exitUsage)
	}
	l := locale.Default().Localizer("es-ES")
	want := l.T("console_flag_lang_unknown", "Value", `"xx"`, "Languages", strings.Join(locale.Default().Languages(), ", "))
	if !strings.HasPrefix(stderr.String(), want+"\n") || !strings.Contains(stderr.String(), l.T("console_usage_flags")) {
		t.Errorf("stderr = %q, want %q and the Spanish usage", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

// TestUsageColumnsInWideScripts: in every language the descriptions of the
// usage start in one column of the terminal, a wide character (Chinese,
// Japanese, Korean) counting two.
func TestUsageColumnsInWideScripts(t *testing.T) {
	for _, lang := range locale.Default().Languages() {
		text := usage(locale.Default().Localizer(lang))
		col := -1
		for line := range strings.Lines(text) {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			k := strings.Index(line[3:], "  ")
			for k >= 0 && line[3+k+2] == ' ' { // the padding's last two spaces
				k++
			}
			start := displayWidth(line[:3+k+2])
			if col < 0 {
				col = start
			} else if start != col {
				t.Errorf("%s: %q starts its description at column %d, the first flag at %d", lang, strings.TrimSpace(line), start, col)
			}
		}
		if col < 0 {
			t.Errorf("%s: no flag in the usage", lang)
		}
	}
	if displayWidth("数值") != 4 || displayWidth("N") != 1 {
		t.Error("displayWidth counts wide characters as one column")
	}
}
