package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
)

// maxLine is the longest input line kept, in bytes; the rest of a longer line
// is read and dropped.
const maxLine = 1024

// errInputEnded reports that stdin reached its end at a prompt.
var errInputEnded = errors.New("input ended")

// readError is an error reading stdin, which run explains as such.
type readError struct{ err error }

func (e *readError) Error() string { return "reading input: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// session is one run of Main: matches between the same two players, whose
// records carry over from match to match. Everything it says, it reads
// from the catalog through l.
type session struct {
	l       *locale.Localizer
	s       settings
	in      *bufio.Reader
	out     *bufio.Writer
	stderr  io.Writer
	echo    bool // write each line read after its prompt
	paint   painter
	first   int // number of the leftmost column: 0 or 1
	records [3]game.Record
	matches int   // matches started
	err     error // the first read or write error
	engine  *ai.Engine
}

func newSession(l *locale.Localizer, s settings, stdin io.Reader, stdout, stderr io.Writer, color bool) *session {
	f, _ := stdin.(*os.File)
	first := 1
	if s.zero {
		first = 0
	}
	var engine *ai.Engine
	if s.ai != game.NoPlayer {
		engine = ai.NewEngine(ai.Options{})
	}
	return &session{
		l:      l,
		engine: engine,
		s:      s,
		in:     bufio.NewReader(stdin),
		out:    bufio.NewWriter(stdout),
		stderr: stderr,
		echo:   !isTerminal(f),
		paint:  painter{l: l, color: color, names: s.names},
		first:  first,
	}
}

// printf writes to stdout; a write error is kept in c.err and reported by run.
func (c *session) printf(format string, a ...any) {
	if c.err == nil {
		_, c.err = fmt.Fprintf(c.out, format, a...)
	}
}

// say writes text, one or more lines of a message, and a newline.
func (c *session) say(text string) {
	c.printf("%s\n", text)
}

// gap writes an empty line, which sets what follows apart.
func (c *session) gap() {
	c.printf("\n")
}

// readLine shows prompt, followed by a space, and returns the next line of
// input without its line ending. It returns errInputEnded at the end of
// input, any other read error as a *readError, and a write error as is
// (both also kept in c.err).
func (c *session) readLine(prompt string) (string, error) {
	c.printf("%s ", prompt)
	if c.err == nil {
		c.err = c.out.Flush()
	}
	if c.err != nil {
		return "", c.err
	}
	var line []byte
	for {
		chunk, more, err := c.in.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", errInputEnded
			}
			c.err = &readError{err}
			return "", c.err
		}
		if len(line) < maxLine {
			line = append(line, chunk[:min(len(chunk), maxLine-len(line))]...)
		}
		if !more {
			break
		}
	}
	if c.echo {
		c.printf("%s\n", line)
	}
	return string(line), nil
}

// run plays matches until the players stop or the input ends, and returns
// Main's exit status.
func (c *session) run() int {
	cfg := c.s.cfg
	c.say(c.l.T("console_welcome"))
	c.say(c.l.N("console_settings", cfg.Wins, "Connect", cfg.Connect, "Rows", cfg.Rows, "Columns", cfg.Columns,
		"Player1", c.paint.label(game.Player1), "Player2", c.paint.label(game.Player2)))
	if cfg.Openers == game.AlwaysFirst {
		c.say(c.l.T("console_opens_every_round", "Player", c.paint.label(game.Player1)))
	} else {
		c.say(c.l.T("console_openers_alternate"))
	}
	c.say(c.l.T("console_how_to_play", "First", c.first, "Last", c.first+cfg.Columns-1))
	err := c.play(cfg)
	if errors.Is(err, errInputEnded) {
		c.gap()
		c.say(c.l.T("console_input_ended"))
		err = nil
	}
	if err == nil {
		c.err = c.out.Flush()
		err = c.err
	}
	if errors.Is(err, syscall.EPIPE) {
		return exitOK // the reader of stdout went away (connectn play | head): nobody to tell
	}
	if err != nil {
		var re *readError
		if errors.As(err, &re) {
			fmt.Fprintln(c.stderr, c.l.T("console_error_reading", "Error", re.err.Error()))
		} else {
			fmt.Fprintln(c.stderr, c.l.T("console_error", "Error", err.Error()))
		}
		return exitIO
	}
	return exitOK
}

// play runs matches until a player answers no to "Play again?" (nil) or
// input fails (errInputEnded or a read or write error). Under the alternate
// policy each new match is opened by the player who did not open the last
// one; under the first policy player 1 opens every round of every match.
func (c *session) play(cfg game.Config) error {
	for {
		m, err := game.NewMatch(cfg)
		if err != nil {
			return err // parseFlags validated cfg: cannot happen
		}
		c.matches++
		if c.matches > 1 {
			c.gap()
			c.say(c.l.N("console_settings_next_match", cfg.Wins, "Match", c.matches, "Connect", cfg.Connect,
				"Rows", cfg.Rows, "Columns", cfg.Columns, "Player1", c.paint.label(game.Player1), "Player2", c.paint.label(game.Player2)))
		}
		if err := c.playMatch(m); err != nil {
			return err
		}
		for _, p := range []game.Player{game.Player1, game.Player2} {
			c.records[p] = c.records[p].Add(m.Record(p))
		}
		c.showMatchEnd(m)
		again, err := c.askAgain()
		if err != nil {
			return err
		}
		if !again {
			c.say(c.l.T("console_goodbye"))
			return nil
		}
		if cfg.Openers == game.Alternate {
			cfg.FirstOpener = m.Config().FirstOpener.Other()
		}
	}
}

// playMatch plays m until it is over, and returns nil, or errInputEnded or a
// read or write error.
func (c *session) playMatch(m *game.Match) error {
	for !m.Over() {
		r := m.Round()
		if len(r.Moves()) == 0 {
			c.gap()
			c.say(c.l.T("console_round_opens", "Round", r.Number(), "Player", c.paint.label(r.Opener())))
		}
		p := r.ToMove()
		c.printf("\n%s", c.paint.board(r.Board(), nil, c.first))
		c.say(c.l.T("console_to_play", "Player", c.paint.label(p),
			"Disc1", c.paint.disc(game.Player1, false), "Run1", r.Board().LongestRun(game.Player1),
			"Disc2", c.paint.disc(game.Player2, false), "Run2", r.Board().LongestRun(game.Player2)))
		var played *game.Round
		var quit bool
		var err error
		if p == c.s.ai {
			played, err = c.aiTurn(m, p)
		} else {
			played, quit, err = c.turn(m, p)
		}
		if err != nil {
			return err
		}
		if quit {
			if err := m.Forfeit(p); err != nil {
				return err // p is to move in a match going on: cannot happen
			}
			c.say(c.l.T("console_quits", "Player", c.paint.label(p), "Opponent", c.paint.label(p.Other()), "Round", r.Number()))
			c.showScore(m)
			return nil
		}
		if played.Over() {
			c.showRoundEnd(m, played)
		}
	}
	return nil
}

// turn asks p for a column until their disc is dropped, and returns the
// round it was dropped in (which may have ended, with the next one started),
// or until they quit (quit true, nothing played). A refused line or a full
// column is explained and p is asked again.
func (c *session) turn(m *game.Match, p game.Player) (r *game.Round, quit bool, err error) {
	columns := m.Config().Columns
	prompt := c.l.T("console_column_prompt", "Player", c.paint.label(p), "First", c.first, "Last", c.first+columns-1)
	for {
		line, err := c.readLine(prompt)
		if err != nil {
			return nil, false, err
		}
		column, quit, err := parseColumn(line, columns, c.s.zero)
		var refused *inputError
		if errors.As(err, &refused) {
			c.say(refused.text(c.l))
			continue
		}
		if err != nil {
			return nil, false, err // parseColumn refuses with an *inputError: cannot happen
		}
		if quit {
			return nil, true, nil
		}
		r, err := m.Play(p, column)
		if errors.Is(err, game.ErrColumnFull) {
			c.say(c.l.T("console_column_full", "Column", c.first+column))
			continue
		}
		if err != nil {
			return nil, false, err // a column in range, by the player to move: cannot happen
		}
		return r, false, nil
	}
}

// aiTurn lets the AI play p's disc in m and says where it went. The AI
// has one second.
func (c *session) aiTurn(m *game.Match, p game.Player) (*game.Round, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	column, err := c.engine.Move(ctx, m, c.s.level)
	if err != nil {
		return nil, err
	}
	c.say(c.l.T("console_ai_plays", "Player", c.paint.label(p), "Column", c.first+column))
	return m.Play(p, column)
}

// showRoundEnd shows the final board of r, with its winning line in upper
// case, who won or that the round is a draw, and the score.
func (c *session) showRoundEnd(m *game.Match, r *game.Round) {
	c.printf("\n%s", c.paint.board(r.Board(), r, c.first))
	switch r.Outcome() {
	case game.Won:
		c.say(c.l.T("console_round_won", "Player", c.paint.label(r.Winner()), "Connect", m.Config().Connect, "Round", r.Number()))
	case game.Drawn:
		c.say(c.l.T("console_round_drawn", "Connect", m.Config().Connect, "Round", r.Number()))
	}
	c.showScore(m)
}

// showScore shows the round wins of both players and the draws in m.
func (c *session) showScore(m *game.Match) {
	c.say(c.l.T("console_score",
		"Player1", c.s.names[game.Player1], "Wins1", c.l.N("console_count_wins", m.Score(game.Player1)),
		"Player2", c.s.names[game.Player2], "Wins2", c.l.N("console_count_wins", m.Score(game.Player2)),
		"Draws", c.l.N("console_count_draws", m.Draws())))
}

// showMatchEnd announces the end of m and every player's record over all
// the rounds of all the matches played.
func (c *session) showMatchEnd(m *game.Match) {
	c.gap()
	if m.Forfeited() {
		c.say(c.l.T("console_match_won_by_forfeit", "Player", c.paint.label(m.Winner())))
	} else {
		c.say(c.l.T("console_match_won", "Player", c.paint.label(m.Winner())))
	}
	c.say(c.l.T("console_records"))
	for _, p := range []game.Player{game.Player1, game.Player2} {
		r := c.records[p]
		c.printf("  ") // the records are indented under their heading
		c.say(c.l.T("console_record", "Player", c.paint.label(p), "Wins", c.l.N("console_count_wins", r.Wins),
			"Losses", c.l.N("console_count_losses", r.Losses), "Draws", c.l.N("console_count_draws", r.Draws)))
	}
}

// askAgain asks whether to play another match until the answer is yes or
// no.
func (c *session) askAgain() (bool, error) {
	for {
		line, err := c.readLine(c.l.T("console_play_again"))
		if err != nil {
			return false, err
		}
		again, err := parseAnswer(line)
		var refused *inputError
		if errors.As(err, &refused) {
			c.say(refused.text(c.l))
			continue
		}
		if err != nil {
			return false, err // parseAnswer refuses with an *inputError: cannot happen
		}
		return again, nil
	}
}
