package lazyregexp

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if re() != first {
		t.Error("compiled twice")
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Error("wrong expression")
	}
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on use")
		}
	}()
	bad := New(`(`) // no panic yet
	bad()
}
