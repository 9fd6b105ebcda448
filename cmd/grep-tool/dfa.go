package main

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A dfa tells which lines of a text a regular expression matches, reading
// each byte once with one table lookup, as GNU grep and ripgrep do for a
// pattern with no literal to search for. Go's regexp simulates the
// pattern's automaton afresh on every line, several times slower.
//
// The automaton is built lazily from the pattern's compiled program: a
// state is the set of instructions the program could be at, and a
// transition is worked out the first time it is taken, then kept in the
// table. Empty-width assertions (^, $, \b, \B) are followed when the next
// character is known, so a state is taken before them, with what it needs
// to know of the character before it.
//
// A dfa is not safe for use by several goroutines; the matcher keeps a
// pool of them.
type dfa struct {
	prog  *syntax.Prog
	start int32 // the state at the start of a line

	states []dstate
	index  map[string]int32 // states by key
	trans  []int32          // by state<<8 | byte: the next state, or one of the codes below
	runes  map[runeStep]int32
	limit  int // the most states kept before the table is emptied
	resets int // how many more times it may be before the dfa gives up

	// Scratch space for working out a transition.
	seen  []bool
	stack []uint32
	set   []uint32
	key   []byte
}

// The codes in the transition table, beside state numbers (from 1).
const (
	unknown  = 0  // not worked out yet
	matched  = -1 // the line matches: a match ends before this byte
	specials = -2 // \n, \r or a byte of a multi-byte character: see lines and slow
)

// A dstate is a set of the program's instructions, before any empty-width
// instruction or alternation among them is followed.
type dstate struct {
	pcs  []uint32
	prev rune // the character before, as far as assertions tell: -1 (none), 'a' (a word character) or ' '
	eol  int8 // whether the line matches if it ends here: 0 not known yet, 1 yes, -1 no
}

type runeStep struct {
	state int32
	r     rune
}

// maxStates bounds the table of a dfa at 1 MiB: past it, the table is
// emptied and built again from the state at hand, up to maxResets times.
const maxStates = 1024

var noTransitions [256]int32

func newDFA(prog *syntax.Prog) *dfa {
	d := &dfa{prog: prog, limit: maxStates, resets: maxResets, seen: make([]bool, len(prog.Inst))}
	d.reset()
	return d
}

// reset empties the table, keeping only the start state.
func (d *dfa) reset() {
	d.states = d.states[:0]
	d.states = append(d.states, dstate{}) // state 0 is no state
	d.index = make(map[string]int32)
	d.trans = append(d.trans[:0], noTransitions[:]...)
	d.runes = make(map[runeStep]int32)
	d.start = d.intern([]uint32{uint32(d.prog.Start)}, -1)
}

// intern returns the number of the state with these instructions (sorted,
// unique) and previous character, adding it if it is new.
func (d *dfa) intern(pcs []uint32, prev rune) int32 {
	d.key = append(d.key[:0], byte(prev))
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.index[string(d.key)]; ok {
		return s
	}
	s := int32(len(d.states))
	d.states = append(d.states, dstate{pcs: slices.Clone(pcs), prev: prev})
	d.index[string(d.key)] = s
	d.trans = append(d.trans, noTransitions[:]...)
	for _, b := range []byte{'\n', '\r'} {
		d.trans[int(s)<<8|int(b)] = specials
	}
	for b := utf8.RuneSelf; b < 256; b++ {
		d.trans[int(s)<<8|b] = specials
	}
	return s
}

// wordClass is the character standing for r as the previous one.
func wordClass(r rune) rune {
	if syntax.IsWordChar(r) {
		return 'a'
	}
	return ' '
}

// follow works out which rune-consuming instructions state s reaches
// before the character next (-1 for the end of the line), and whether it
// reaches a match there. The instructions are left in d.set.
func (d *dfa) follow(s int32, next rune) (match bool) {
	ctx := syntax.EmptyOpContext(d.states[s].prev, next)
	clear(d.seen)
	d.set = d.set[:0]
	d.stack = append(d.stack[:0], d.states[s].pcs...)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			match = true
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^ctx == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.set = append(d.set, pc)
		}
	}
	return match
}

// step works out the transition from state s on character r.
func (d *dfa) step(s int32, r rune) int32 {
	if d.follow(s, r) {
		return matched
	}
	next := make([]uint32, 0, len(d.set)+1)
	for _, pc := range d.set {
		inst := &d.prog.Inst[pc]
		var ok bool
		switch inst.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = inst.MatchRune(r)
		}
		if ok {
			next = append(next, inst.Out)
		}
	}
	// The search is unanchored: a match may start at any character.
	next = append(next, uint32(d.prog.Start))
	slices.Sort(next)
	return d.intern(slices.Compact(next), wordClass(r))
}

// endsMatch reports whether the line matches if it ends in state s.
func (d *dfa) endsMatch(s int32) bool {
	st := &d.states[s]
	if st.eol == 0 {
		st.eol = -1
		if d.follow(s, -1) {
			st.eol = 1
		}
	}
	return st.eol > 0
}

// maxResets is how many times a dfa empties its table before it gives up:
// a pattern that needs so many states (a{1,20}b{1,20}, for one) runs
// faster on Go's regexp than on an automaton that works out a state for
// nearly every byte.
const maxResets = 8

// slow takes the transition from state s on the character at the start of
// text, which the table does not give: it works it out, and keeps it in
// the table or, for a character of several bytes or a \r, in d.runes. It
// returns false if the automaton gives up (see maxResets).
func (d *dfa) slow(s int32, text []byte) (next int32, size int, ok bool) {
	r, size := rune(text[0]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRune(text)
	}
	inTable := d.trans[int(s)<<8|int(text[0])] == unknown
	if !inTable {
		if t, ok := d.runes[runeStep{s, r}]; ok {
			return t, size, true
		}
	}
	if len(d.states) >= d.limit {
		if d.resets == 0 {
			return 0, 0, false
		}
		d.resets--
		st := d.states[s]
		d.reset()
		s = d.intern(st.pcs, st.prev)
	}
	next = d.step(s, r)
	if inTable {
		d.trans[int(s)<<8|int(text[0])] = next
	} else {
		d.runes[runeStep{s, r}] = next
	}
	return next, size, true
}

// match reports whether the automaton's pattern matches line, which holds
// no \n. It returns ok false if the automaton gave up.
func (d *dfa) match(line []byte) (matches, ok bool) {
	s := d.start
	for i := 0; i < len(line); {
		t := d.trans[int(s)<<8|int(line[i])]
		if t > 0 {
			s = t
			i++
			continue
		}
		size := 1
		if t != matched {
			if t, size, ok = d.slow(s, line[i:]); !ok {
				return false, false
			}
		}
		if t == matched {
			return true, true
		}
		s, i = t, i+size
	}
	return d.endsMatch(s), true
}

// lines calls fn, as matcher.lines does, for every line of text that the
// automaton's pattern matches. If the automaton gives up, it returns ok
// false with the offset and number of the line it was reading, for the
// caller to go on from there another way.
func (d *dfa) lines(text []byte, fn func(num int, line []byte, at int)) (ok bool, rest, restNum int) {
	num, counted := 1, 0 // num is the number of the line starting at counted
	emit := func(start, end int) {
		num += bytes.Count(text[counted:start], []byte{'\n'})
		counted = start
		fn(num, trimCR(text[start:end]), -1)
	}
	s, start := d.start, 0 // the state, and where its line starts
	for i := 0; i < len(text); {
		c := text[i]
		t := d.trans[int(s)<<8|int(c)]
		if t > 0 {
			s = t
			i++
			continue
		}
		if t == specials && (c == '\n' || c == '\r' && (i+1 == len(text) || text[i+1] == '\n')) {
			// The end of a line.
			if c == '\r' {
				i++ // to the \n, or the end: emit takes \r\n away
			}
			if d.endsMatch(s) {
				emit(start, i)
			}
			s, i, start = d.start, i+1, i+1
			continue
		}
		size := 1
		if t != matched {
			if t, size, ok = d.slow(s, text[i:]); !ok {
				return false, start, num + bytes.Count(text[counted:start], []byte{'\n'})
			}
		}
		if t == matched {
			// A match ends before this character: the line matches, and
			// the rest of it need not be read.
			end := indexFrom(text, '\n', i)
			if end < 0 {
				end = len(text)
			}
			emit(start, end)
			s, i, start = d.start, end+1, end+1
			continue
		}
		s, i = t, i+size
	}
	if start < len(text) && d.endsMatch(s) {
		emit(start, len(text))
	}
	return true, len(text), 0
}
