package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDFAFull checks the automaton when its table fills up at every step,
// so that each transition is worked out from a state table emptied just
// before: the results must not change.
func TestDFAFull(t *testing.T) {
	texts := []string{
		"Abc123 x\nabc123\nHello999 and Bye000\n",
		"foo_bar_baz\nfoo_bar\n_a_b_c_\r\nx\r\r\n",
		"é_ü_ö\n\xff_\xfe_\xfd\nĀbc123\n",
		"go\ngolang\nlet's go\r\n\n",
	}
	patterns := []string{`[A-Z][a-z]+[0-9]{3}`, `\w+_\w+_\w+`, `^\w+$`, `\bgo\b`, `(?i)[à-ÿ]`, `\B.\B`, `$`, `^\r`, `.\r$`}
	for _, pattern := range patterns {
		m, err := newMatcher(pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{2, maxStates} {
			d := unlimited(m, limit)
			for _, text := range texts {
				got := dfaLines(d, []byte(text))
				if diff := cmp.Diff(reference(m.re, []byte(text)), got); diff != "" {
					t.Errorf("%q in %q, %d states (-want +got):\n%s", pattern, text, limit, diff)
				}
			}
			// State 0, the start, the state at hand and the next one.
			if limit == 2 && len(d.states) > 4 {
				t.Errorf("%q: %d states kept, limit %d", pattern, len(d.states), limit)
			}
		}
	}
}

// unlimited returns a new automaton for m's pattern that keeps at most
// limit states and empties its table as often as it must, never giving up.
func unlimited(m *matcher, limit int) *dfa {
	pooled := m.dfas.Get().(*dfa)
	defer m.dfas.Put(pooled)
	d := newDFA(pooled.prog)
	d.limit, d.resets = limit, math.MaxInt
	return d
}

// dfaLines lists the lines d finds in text as "num:content", checking
// that d.match agrees on each.
func dfaLines(d *dfa, text []byte) []string {
	var got []string
	d.lines(text, func(num int, line []byte, at int) {
		got = append(got, fmt.Sprintf("%d:%s", num, line))
		if matches, ok := d.match(line); !matches || !ok {
			got = append(got, fmt.Sprintf("match(%q) = %v, %v", line, matches, ok))
		}
	})
	return got
}

// TestDFAGivesUp checks that a pattern needing a state for nearly every
// byte ends on Go's regexp, from the line the automaton was reading, with
// the same results.
func TestDFAGivesUp(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var text strings.Builder
	for range 3000 {
		for range 60 {
			text.WriteByte("ab"[rnd.IntN(2)])
		}
		text.WriteByte('\n')
	}
	m, err := newMatcher(`a[ab]{12}b$`, false)
	if err != nil {
		t.Fatal(err)
	}
	want := reference(m.re, []byte(text.String()))
	if diff := cmp.Diff(want, matches(m, []byte(text.String()))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !m.gaveUp.Load() {
		t.Errorf("the automaton did not give up")
	}
	if diff := cmp.Diff(want, matches(m, []byte(text.String()))); diff != "" {
		t.Errorf("after giving up (-want +got):\n%s", diff)
	}
}
