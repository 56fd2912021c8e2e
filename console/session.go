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
)

// maxLine is the longest input line kept, in bytes; the rest of a longer line
// is read and dropped.
const maxLine = 1024

// errInputEnded reports that stdin reached its end at a prompt.
var errInputEnded = errors.New("input ended")

// session is one run of Main: matches between the same two players, whose
// records carry over from match to match.
type session struct {
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

func newSession(s settings, stdin io.Reader, stdout, stderr io.Writer, color bool) *session {
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
		engine: engine,
		s:      s,
		in:     bufio.NewReader(stdin),
		out:    bufio.NewWriter(stdout),
		stderr: stderr,
		echo:   !isTerminal(f),
		paint:  painter{color: color, names: s.names},
		first:  first,
	}
}

// printf writes to stdout; a write error is kept in c.err and reported by run.
func (c *session) printf(format string, a ...any) {
	if c.err == nil {
		_, c.err = fmt.Fprintf(c.out, format, a...)
	}
}

// readLine shows prompt and returns the next line of input without its line
// ending. It returns errInputEnded at the end of input, and any other read or
// write error as is (also kept in c.err).
func (c *session) readLine(prompt string) (string, error) {
	c.printf("%s", prompt)
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
			c.err = fmt.Errorf("reading input: %w", err)
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
	c.printf("Welcome to Connect N.\n")
	c.printf("%s.\n", c.settingsLine(cfg))
	if cfg.Openers == game.AlwaysFirst {
		c.printf("%s opens every round.\n", c.paint.label(game.Player1))
	} else {
		c.printf("Openers alternate from round to round and from match to match.\n")
	}
	c.printf("At each prompt, enter a column number from %d to %d, or q to quit the match.\n", c.first, c.first+cfg.Columns-1)
	err := c.play(cfg)
	if errors.Is(err, errInputEnded) {
		c.printf("\nInput ended; goodbye.\n")
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
		fmt.Fprintf(c.stderr, "connectn play: %v\n", err)
		return exitIO
	}
	return exitOK
}

// settingsLine describes a match, as "Connect 4 on a 6x7 board, first to 1
// win: Alice (x) vs Bob (o)".
func (c *session) settingsLine(cfg game.Config) string {
	return fmt.Sprintf("Connect %d on a %dx%d board, first to %s: %s vs %s",
		cfg.Connect, cfg.Rows, cfg.Columns, wins(cfg.Wins), c.paint.label(game.Player1), c.paint.label(game.Player2))
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
			c.printf("\nMatch %d: %s. Records carry over.\n", c.matches, c.settingsLine(cfg))
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
			c.printf("Thanks for playing. Goodbye.\n")
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
			c.printf("\nRound %d: %s opens.\n", r.Number(), c.paint.label(r.Opener()))
		}
		p := r.ToMove()
		c.printf("\n%s", c.paint.board(r.Board(), nil, c.first))
		c.printf("%s to play. Longest runs: %s %d, %s %d.\n", c.paint.label(p),
			c.paint.disc(game.Player1, false), r.Board().LongestRun(game.Player1),
			c.paint.disc(game.Player2, false), r.Board().LongestRun(game.Player2))
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
			c.printf("%s quits the match: %s wins round %d by forfeit.\n", c.paint.label(p), c.paint.label(p.Other()), r.Number())
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
	prompt := fmt.Sprintf("%s, enter a column (%d-%d): ", c.paint.label(p), c.first, c.first+columns-1)
	for {
		line, err := c.readLine(prompt)
		if err != nil {
			return nil, false, err
		}
		column, quit, err := parseColumn(line, columns, c.s.zero)
		if err != nil {
			c.printf("%v\n", err)
			continue
		}
		if quit {
			return nil, true, nil
		}
		r, err := m.Play(p, column)
		if errors.Is(err, game.ErrColumnFull) {
			c.printf("Column %d is full: choose another column.\n", c.first+column)
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
	c.printf("%s plays column %d.\n", c.paint.label(p), c.first+column)
	return m.Play(p, column)
}

// showRoundEnd shows the final board of r, with its winning line in upper
// case, who won or that the round is a draw, and the score.
func (c *session) showRoundEnd(m *game.Match, r *game.Round) {
	c.printf("\n%s", c.paint.board(r.Board(), r, c.first))
	switch r.Outcome() {
	case game.Won:
		c.printf("%s connects %d and wins round %d.\n", c.paint.label(r.Winner()), m.Config().Connect, r.Number())
	case game.Drawn:
		c.printf("The board is full and nobody connected %d: round %d is a draw.\n", m.Config().Connect, r.Number())
	}
	c.showScore(m)
}

// showScore shows the round wins of both players and the draws in m.
func (c *session) showScore(m *game.Match) {
	c.printf("Score: %s has %s, %s has %s; %s.\n",
		c.s.names[game.Player1], wins(m.Score(game.Player1)),
		c.s.names[game.Player2], wins(m.Score(game.Player2)),
		plural(m.Draws(), "draw", "draws"))
}

// showMatchEnd announces the end of m and every player's record over all
// the rounds of all the matches played.
func (c *session) showMatchEnd(m *game.Match) {
	how := ""
	if m.Forfeited() {
		how = " by forfeit"
	}
	c.printf("\nGame over: %s wins the match%s.\n", c.paint.label(m.Winner()), how)
	c.printf("Records over all rounds played:\n")
	for _, p := range []game.Player{game.Player1, game.Player2} {
		r := c.records[p]
		c.printf("  %s: %s, %s, %s.\n", c.paint.label(p), wins(r.Wins),
			plural(r.Losses, "loss", "losses"), plural(r.Draws, "draw", "draws"))
	}
}

// askAgain asks whether to play another match until the answer is yes or
// no.
func (c *session) askAgain() (bool, error) {
	for {
		line, err := c.readLine("Play again? (y/n) ")
		if err != nil {
			return false, err
		}
		again, err := parseAnswer(line)
		if err != nil {
			c.printf("%v\n", err)
			continue
		}
		return again, nil
	}
}
