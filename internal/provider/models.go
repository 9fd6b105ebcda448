package provider

import (
	"context"
	"strings"
)

// A ModelLister can say which models its API offers, from the API's
// models endpoint.
type ModelLister interface {
	Models(ctx context.Context) ([]string, error)
}

// ModelInfo is what ikigai knows of a model without asking its API.
type ModelInfo struct {
	// Window is how many tokens the model reads; 0 when unknown.
	Window int
	// Price is what the model costs; nil when unknown.
	Price *Price
	// TextOnly: the model reads no images.
	TextOnly bool
}

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost returns what u cost at p: cached input at its own prices, the rest
// at the input price.
func (p Price) Cost(u Usage) float64 {
	plain := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	return (float64(plain)*p.Input + float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
}

// A ModelTable lists what a provider's models are known to be, by name
// prefix: the longest prefix that matches a model's name wins.
type ModelTable []struct {
	Prefix string
	Info   ModelInfo
}

// Lookup returns what the table knows of the model called name.
func (t ModelTable) Lookup(name string) ModelInfo {
	best, found := -1, ModelInfo{}
	for _, m := range t {
		if strings.HasPrefix(name, m.Prefix) && len(m.Prefix) > best {
			best, found = len(m.Prefix), m.Info
		}
	}
	return found
}
