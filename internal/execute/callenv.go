package execute

import (
	"context"
	"slices"
)

// envKey is the context key of WithEnv's variables.
type envKey struct{}

// WithEnv returns a context that gives a tool run with it the variables
// env (KEY=VALUE) beside its usual environment: what belongs to one call
// rather than to the tool, such as the host API's per-call token. Calls
// on contexts derived from it get them too; a later WithEnv adds to them.
func WithEnv(ctx context.Context, env ...string) context.Context {
	return context.WithValue(ctx, envKey{}, slices.Concat(CallEnv(ctx), env))
}

// CallEnv returns the variables WithEnv attached to ctx.
func CallEnv(ctx context.Context) []string {
	env, _ := ctx.Value(envKey{}).([]string)
	return env
}
