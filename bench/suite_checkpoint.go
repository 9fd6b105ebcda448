package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/checkpoint"
)

func init() {
	register("repl: checkpoints of a turn's files", benchCheckpoint)
}

// checkpointFiles and checkpointSize shape the workspace: a mid-sized
// project.
const checkpointFiles, checkpointSize = 3000, 8 << 10

// benchCheckpoint times what /rewind costs a turn: the snapshot taken at
// the end of a turn that changed one file of a workspace of 3,000 files
// (24 MiB), the first snapshot of it in a new shadow repository and in one
// an earlier session made, and restoring the files to a snapshot.
func benchCheckpoint(b *bench) error {
	dir := filepath.Join(b.work, "checkpoint")
	work := filepath.Join(dir, "work")
	line := strings.Repeat("x", 63) + "\n"
	for i := range checkpointFiles {
		path := filepath.Join(work, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("file%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(fmt.Sprintf("// %d\n", i)+strings.Repeat(line, checkpointSize/len(line))), 0o644); err != nil {
			return err
		}
	}
	ctx := context.Background()
	runs := b.Runs(20)
	first := Sample{Cmd: Cmd{Label: "first snapshot (new shadow repository)"}}
	shared := Sample{Cmd: Cmd{Label: "first snapshot of the next session (repository shared)"}}
	turn := Sample{Cmd: Cmd{Label: "snapshot after a turn that changed one file"}}
	restore := Sample{Cmd: Cmd{Label: "restore to the snapshot before that turn"}}
	for i := range runs {
		repoDir := filepath.Join(dir, fmt.Sprintf("repo%d.git", i))
		start := time.Now()
		repo, err := checkpoint.Open(ctx, repoDir, work, "bench", 0)
		if err != nil {
			return err
		}
		if _, err := repo.Snapshot(ctx, "before"); err != nil {
			return err
		}
		first.Times = append(first.Times, time.Since(start))
		earlier := repo
		start = time.Now()
		if repo, err = checkpoint.Open(ctx, repoDir, work, "next", 0); err != nil {
			return err
		}
		before, err := repo.Snapshot(ctx, "before")
		if err != nil {
			return err
		}
		shared.Times = append(shared.Times, time.Since(start))
		changed := filepath.Join(work, "pkg07", "file0007.go")
		if err := os.WriteFile(changed, []byte(fmt.Sprintf("changed %d\n", i)), 0o644); err != nil {
			return err
		}
		start = time.Now()
		if _, err := repo.Snapshot(ctx, "after"); err != nil {
			return err
		}
		turn.Times = append(turn.Times, time.Since(start))
		start = time.Now()
		if _, err := repo.Restore(ctx, before); err != nil {
			return err
		}
		restore.Times = append(restore.Times, time.Since(start))
		earlier.Forget(ctx)
		if err := repo.Forget(ctx); err != nil {
			return err
		}
	}
	b.Printf("A workspace of %d files (%d MiB) in a shadow git repository, %d runs each.\n\n", checkpointFiles, checkpointFiles*checkpointSize>>20, runs)
	b.Table([]Sample{first, shared, turn, restore}, map[string]string{
		turn.Cmd.Label: fmt.Sprintf("< 200 ms: %s", Verdict(turn.Median() < 200*time.Millisecond)),
	})
	return nil
}
