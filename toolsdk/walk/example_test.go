package walk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ikigai-tools/ikigai/toolsdk/walk"
)

// List a project's files as glob and grep see them: .git and what
// .gitignore excludes are left out.
func ExampleWalk() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	for name, content := range map[string]string{
		".gitignore":       "*.log\nbuild/\n",
		"main.go":          "package main\n",
		"debug.log":        "...",
		"build/main":       "...",
		"internal/a/a.go":  "package a\n",
		".git/config":      "",
		"internal/a/a.log": "...",
	} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o644)
	}

	var mu sync.Mutex
	var found []string
	err := walk.Walk(context.Background(), dir, walk.Options{}, func(worker int, f walk.File) {
		mu.Lock()
		defer mu.Unlock()
		found = append(found, f.Rel)
	})
	if err != nil {
		panic(err)
	}
	slices.Sort(found) // files come in no particular order
	for _, f := range found {
		fmt.Println(f)
	}
	// Output:
	// .gitignore
	// internal/a/a.go
	// main.go
}
