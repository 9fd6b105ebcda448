package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStore(t *testing.T) {
	s := At(filepath.Join(t.TempDir(), "home", ".ikigai", "trusted.json"))
	if dirs, err := s.List(); err != nil || dirs != nil {
		t.Fatalf("a missing store lists %v, %v", dirs, err)
	}
	for _, d := range []string{"/b", "/a", "/b"} {
		if err := s.Add(d, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := s.List()
	if diff := cmp.Diff([]string{"/a", "/b"}, dirs); err != nil || diff != "" {
		t.Fatalf("List (-want +got):\n%s%v", diff, err)
	}
	if ok, err := s.Contains("/a"); !ok || err != nil {
		t.Errorf("Contains(/a) = %v, %v", ok, err)
	}
	if ok, err := s.Contains("/a/sub"); ok || err != nil {
		t.Errorf("Contains(/a/sub) = %v, %v: trust is per directory", ok, err)
	}
	if ok, err := s.Remove("/a"); !ok || err != nil {
		t.Errorf("Remove(/a) = %v, %v", ok, err)
	}
	if ok, err := s.Remove("/a"); ok || err != nil {
		t.Errorf("second Remove(/a) = %v, %v", ok, err)
	}
	if ok, _ := s.Contains("/a"); ok {
		t.Error("/a is still trusted")
	}
}

func TestStoreCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted.json")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := At(path).Contains("/a"); err == nil {
		t.Error("a corrupt store gave no error")
	}
	if err := At(path).Add("/a", nil, false); err == nil {
		t.Error("Add overwrote a corrupt store")
	}
}

func TestCanonical(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for in, want := range map[string]string{
		link:                           real,
		"real/../real/":                real,
		"link":                         real,
		"~/real":                       real,
		"~":                            root,
		filepath.Join(root, "missing"): filepath.Join(root, "missing"),
	} {
		if got, err := Canonical(in, root); got != want || err != nil {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// A directory the user declined is remembered apart from the trusted ones,
// and trusting it later forgets the refusal.
func TestDecline(t *testing.T) {
	s := At(filepath.Join(t.TempDir(), "trusted.json"))
	if err := s.Decline("/p"); err != nil {
		t.Fatal(err)
	}
	if no, err := s.Declined("/p"); !no || err != nil {
		t.Errorf("Declined(/p) = %v, %v", no, err)
	}
	if ok, _ := s.Contains("/p"); ok {
		t.Error("a declined directory is trusted")
	}
	if dirs, _ := s.List(); len(dirs) != 0 {
		t.Errorf("List = %v", dirs)
	}
	if err := s.Add("/p", nil, false); err != nil {
		t.Fatal(err)
	}
	if no, _ := s.Declined("/p"); no {
		t.Error("a trusted directory is still declined")
	}
	if ok, _ := s.Contains("/p"); !ok {
		t.Error("/p is not trusted")
	}
}
