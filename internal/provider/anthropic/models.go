package anthropic

import "github.com/ikigai-tools/ikigai/internal/provider"

// Models is what Anthropic's models are known to be: every current Claude
// model reads 200,000 tokens (more only with a beta header ikigai does not
// send). Prices are per family, in dollars per million tokens; the
// configuration's prices key corrects or adds to them. Checked 2026-11-22.
var Models = provider.ModelTable{
	{"claude-", provider.ModelInfo{Window: 200_000}},
	{"claude-haiku", provider.ModelInfo{Window: 200_000, Price: &provider.Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}}},
	{"claude-sonnet", provider.ModelInfo{Window: 200_000, Price: &provider.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}},
	{"claude-opus", provider.ModelInfo{Window: 200_000, Price: &provider.Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}},
}
