package execute

import "context"

type progressKey struct{}

// WithProgress returns ctx carrying report, which a tool runner calls
// with what a long call says of its progress ("3/10 files indexed").
func WithProgress(ctx context.Context, report func(msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressOf returns the progress report ctx carries; nil when there is
// none.
func ProgressOf(ctx context.Context) func(msg string) {
	f, _ := ctx.Value(progressKey{}).(func(string))
	return f
}
