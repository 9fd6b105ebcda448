package gemini

import "github.com/ikigai-tools/ikigai/internal/provider"

// DefaultModel is the model used when none is configured; it is in
// Models below.
const DefaultModel = "gemini-2.5-pro"

// Models is what Google's Gemini models are known to be: each reads
// 1,048,576 tokens. Prices are in dollars per million tokens, for prompts
// up to 200,000 tokens (longer ones cost more); the configuration's
// prices key corrects or adds to them. Checked 2026-11-23.
var Models = provider.ModelTable{
	{"gemini-", provider.ModelInfo{Window: 1_048_576}},
	{"gemini-2.0-flash", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 0.1, Output: 0.4, CacheRead: 0.025}}},
	{"gemini-2.5-pro", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 1.25, Output: 10, CacheRead: 0.125}}},
	{"gemini-2.5-flash", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 0.3, Output: 2.5, CacheRead: 0.03}}},
	{"gemini-2.5-flash-lite", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 0.1, Output: 0.4, CacheRead: 0.01}}},
	{"gemini-3-pro", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 2, Output: 12, CacheRead: 0.2}}},
	{"gemini-3-flash", provider.ModelInfo{Window: 1_048_576, Price: &provider.Price{Input: 0.5, Output: 3, CacheRead: 0.05}}},
}
