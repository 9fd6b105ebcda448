package anthropic

import (
	"context"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

// DefaultModel is the model used when none is configured; it is in
// Models below.
const DefaultModel = "claude-sonnet-5-5"

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

// Models lists the models the API offers, newest first, as its
// /v1/models endpoint does; only the first page (a thousand models).
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := p.client.GetJSON(ctx, "/v1/models?limit=1000", "the model list", &list); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
