// Package console is the terminal front end of Connect N: two players take
// turns at one keyboard, through multi-round matches, with records that carry
// over from match to match. It draws the board as text, checks every line
// typed at a prompt, and leaves the rules to package game.
//
// Usage (cmd/connectn wires it to "connectn play"):
//
//	os.Exit(console.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr,
//		console.ColorEnabled(os.Stdout, os.Getenv)))
//
// A session on the classic board looks like this (input after the prompts):
//
//	1234567
//	.......
//	.......
//	.......
//	...x...
//	...xo..
//	...xo..
//	1234567
//	Alice (x) to play. Longest runs: x 3, o 2.
//	Alice (x), enter a column (1-7): 4
//
// Column numbers count from 1, or from 0 with -zero. While every column
// number fits in one character the board is drawn one character per cell;
// otherwise each cell is as wide as the widest number, cells are separated by
// one space, and numbers are right-aligned above and below their cells.
//
// Every sentence, prompt and name the console writes, its usage too, is a
// message of package locale's catalog (IDs console_*, in
// locale/messages/console.en.toml), read through the localizer the session
// is given; the code keeps only the layout: the board, colours, line breaks,
// indentation and the alignment of the usage.
package console
