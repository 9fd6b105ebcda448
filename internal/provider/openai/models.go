package openai

import "github.com/ikigai-tools/ikigai/internal/provider"

// DefaultModel is the model used with OpenAI's API, at any base URL,
// when none is configured; it is in Models below. Other servers have no
// default: pick asks them.
const DefaultModel = "gpt-5.5"

// Models is what OpenAI's chat models are known to be, in dollars per
// million tokens; the configuration's prices key corrects or adds to
// them. Checked 2026-11-22.
var Models = provider.ModelTable{
	{"gpt-5", provider.ModelInfo{Window: 400_000, Price: &provider.Price{Input: 1.25, Output: 10, CacheRead: 0.125}}},
	{"gpt-5-mini", provider.ModelInfo{Window: 400_000, Price: &provider.Price{Input: 0.25, Output: 2, CacheRead: 0.025}}},
	{"gpt-4.1", provider.ModelInfo{Window: 1_047_576, Price: &provider.Price{Input: 2, Output: 8, CacheRead: 0.5}}},
	{"gpt-4o", provider.ModelInfo{Window: 128_000, Price: &provider.Price{Input: 2.5, Output: 10, CacheRead: 1.25}}},
	{"o1", provider.ModelInfo{Window: 200_000}},
	{"o3", provider.ModelInfo{Window: 200_000}},
	{"o4-mini", provider.ModelInfo{Window: 200_000}},
	// The first small reasoning models read text only.
	{"o1-mini", provider.ModelInfo{Window: 128_000, TextOnly: true}},
	{"o3-mini", provider.ModelInfo{Window: 200_000, TextOnly: true}},
	{"gpt-3.5", provider.ModelInfo{Window: 16_385, TextOnly: true}},
}
