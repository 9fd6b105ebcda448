package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// A SchemaCache remembers the schema each tool answered, keyed by its path
// and by what identifies the file's content: size, modification and change
// times, inode and device. A tool whose file is unchanged is not run with
// --schema again; touching, replacing or chmod'ing it changes the key. A
// nil *SchemaCache remembers nothing.
//
// What a tool's schema depends on besides its file (a script's imported
// modules) is not seen: Rescan, /refresh and ikigai tools --refresh ask
// every tool again.
type SchemaCache struct {
	path string
	// Rescan asks every tool again, and remembers the new answers.
	Rescan bool

	mu      sync.Mutex
	loaded  bool
	entries map[string]cacheEntry
	seen    map[string]bool
	changed bool
}

// cacheEntry is one tool's remembered schema.
type cacheEntry struct {
	ID     fileID          `json:"id"`
	Schema json.RawMessage `json:"schema"`
}

// fileID is what identifies a tool file's content without reading it.
type fileID struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
}

// cacheVersion changes when the file's format does; another is ignored.
const cacheVersion = 1

type cacheFile struct {
	Version int                   `json:"version"`
	Tools   map[string]cacheEntry `json:"tools"`
}

// OpenCache returns the cache kept in the file at path ("" for none),
// read when first needed.
func OpenCache(path string) *SchemaCache {
	if path == "" {
		return nil
	}
	return &SchemaCache{path: path}
}

// Fresh returns a cache on the same file that asks every tool again, for
// a scan the user asked to be fresh.
func (c *SchemaCache) Fresh() *SchemaCache {
	if c == nil {
		return nil
	}
	return &SchemaCache{path: c.path, Rescan: true}
}

// identify returns the identity of the file at path, following links.
func identify(path string) (fileID, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{Size: info.Size(), Mtime: info.ModTime().UnixNano(), Ctime: time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)).UnixNano(),
		Ino: uint64(st.Ino), Dev: uint64(st.Dev)}, true
}

func (c *SchemaCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries, c.seen = map[string]cacheEntry{}, map[string]bool{}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return
	}
	var f cacheFile
	if json.Unmarshal(data, &f) == nil && f.Version == cacheVersion && f.Tools != nil {
		c.entries = f.Tools
	}
}

// probe returns the schema of the tool called name at path: the one
// remembered, if its file is unchanged, else what Probe gets.
func (c *SchemaCache) probe(ctx context.Context, name, path string, timeout time.Duration, env execute.Env) (registry.Schema, []string, *Problem) {
	if c == nil {
		return Probe(ctx, name, path, timeout, env)
	}
	id, ok := identify(path)
	c.mu.Lock()
	c.load()
	c.seen[path] = true
	e, hit := c.entries[path]
	c.mu.Unlock()
	if ok && hit && e.ID == id && !c.Rescan {
		if s, warnings, p := ParseSchema(name, e.Schema); p == nil {
			return s, warnings, nil
		}
	}
	s, warnings, err := Probe(ctx, name, path, timeout, env)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil && ok:
		// The file may have changed while it ran: remember it only as
		// it was before and is after.
		if after, _ := identify(path); after == id {
			c.entries[path] = cacheEntry{ID: id, Schema: s.Document}
			c.changed = true
		}
	case hit:
		// A failure is asked about again next time.
		delete(c.entries, path)
		c.changed = true
	}
	return s, warnings, err
}

// forget drops the remembered tools in dirs that a scan did not see: they
// were removed.
func (c *SchemaCache) forget(dirs []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	for path := range c.entries {
		if !c.seen[path] && containsDir(dirs, filepath.Dir(path)) {
			delete(c.entries, path)
			c.changed = true
		}
	}
}

func containsDir(dirs []string, dir string) bool {
	for _, d := range dirs {
		if d != "" && d == dir {
			return true
		}
	}
	return false
}

// Save writes the cache back if it changed, atomically and readable by
// the user alone.
func (c *SchemaCache) Save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.changed {
		return nil
	}
	data, err := json.Marshal(cacheFile{Version: cacheVersion, Tools: c.entries})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".schemas-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	c.changed = false
	return nil
}
