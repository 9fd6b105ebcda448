package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSchemaCache(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	asked := filepath.Join(dir, "asked")
	tool := func(name string) string {
		path := filepath.Join(tools, name+"-tool")
		script := "#!/bin/sh\necho x >> " + asked + "\necho '{\"name\":\"" + name + "\",\"description\":\"d\"}'\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	count := func() int {
		data, _ := os.ReadFile(asked)
		return strings.Count(string(data), "x")
	}
	a := tool("a")
	tool("b")
	cacheFile := filepath.Join(dir, "cache", "schemas.json")
	scan := func(c *SchemaCache) int {
		r := Scan(context.Background(), Dirs{User: tools, SchemaTimeout: 10 * time.Second, Cache: c})
		if len(r.Tools()) == 0 {
			t.Fatalf("no tools: %+v", r.Failed())
		}
		return len(r.Tools())
	}

	scan(OpenCache(cacheFile))
	if count() != 2 {
		t.Fatalf("first scan asked %d times", count())
	}
	scan(OpenCache(cacheFile))
	if count() != 2 {
		t.Errorf("a warm scan asked %d times, want none", count()-2)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	scan(OpenCache(cacheFile))
	if count() != 3 {
		t.Errorf("a touched tool: asked %d times in all, want 3", count())
	}
	scan(OpenCache(cacheFile).Fresh())
	if count() != 5 {
		t.Errorf("a fresh scan: asked %d times in all, want 5", count())
	}
	// A removed tool is forgotten.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if n := scan(OpenCache(cacheFile)); n != 1 {
		t.Errorf("after removing a: %d tools", n)
	}
	c := OpenCache(cacheFile)
	c.load()
	if _, ok := c.entries[a]; ok || len(c.entries) != 1 {
		t.Errorf("the cache still holds %d entries: %v", len(c.entries), c.entries)
	}
	// A cache that is not one is ignored.
	if err := os.WriteFile(cacheFile, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	scan(OpenCache(cacheFile))
	if count() != 6 {
		t.Errorf("a garbled cache: asked %d times in all, want 6", count())
	}
	if info, err := os.Stat(cacheFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("cache file: %v, %v", info.Mode(), err)
	}
	var none *SchemaCache
	if none.Save() != nil || none.Fresh() != nil || OpenCache("") != nil {
		t.Errorf("a nil cache does something")
	}
}
