package hostapi

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// SkillNotFound is skill.load's error for a name no skill has.
const SkillNotFound = "SKILL_NOT_FOUND"

// maxFound is how many tools one search enables at most.
const maxFound = 5

func skillList(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	if err := decodeArgs(op, args, &struct{}{}); err != nil {
		return nil, err
	}
	list := host.SkillList{Skills: []host.Skill{}}
	for _, sk := range skills.List(s.opts.Skills) {
		list.Skills = append(list.Skills, host.Skill{Name: sk.Name, Description: sk.Description, Tools: sk.Tools})
	}
	return list, nil
}

// skillLoad returns a skill's text, for the tool to hand the model, and
// offers the tools it names in the caller's conversation from now on.
func skillLoad(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.SkillLoad
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	sk, ok := skills.Find(s.opts.Skills, a.Name)
	if !ok {
		return nil, toolsdk.Errorf(SkillNotFound, "Error: no skill called '%s' (skill.list lists them)", a.Name)
	}
	text, err := sk.Read()
	if err != nil {
		return nil, toolsdk.Errorf("READ_FAILED", "Error: reading skill '%s': %v", a.Name, err)
	}
	reg, err := cl.Agent.Tools(ctx)
	if err != nil {
		return nil, err
	}
	out := host.Skill{Name: sk.Name, Description: sk.Description, Text: text}
	for _, name := range sk.Tools {
		if _, ok := reg.Lookup(name); ok && offered(cl, name) {
			out.Tools = append(out.Tools, name)
		} else {
			out.Missing = append(out.Missing, name)
		}
	}
	cl.Conversation.Enable(out.Tools...)
	return out, nil
}

// offered reports whether the caller's policy lets the model have the tool.
func offered(cl *call, name string) bool {
	return cl.Agent.Policy == nil || cl.Agent.Policy.Offered(name)
}

// toolSearch enables the deferred tools named, or those that best match
// the query's words, for the rest of the caller's conversation.
func toolSearch(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.ToolSearch
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Query) == "" && len(a.Names) == 0 {
		return nil, badRequest("give a query (words from what the tool does) or names")
	}
	reg, err := cl.Agent.Tools(ctx)
	if err != nil {
		return nil, err
	}
	var found []registry.Tool
	for _, name := range a.Names {
		if t, ok := reg.Lookup(name); ok && offered(cl, name) {
			found = append(found, t)
		}
	}
	if a.Query != "" {
		found = append(found, Search(reg, a.Query, func(t registry.Tool) bool {
			return offered(cl, t.Name) && !cl.Conversation.Enabled(t.Name) && !slices.ContainsFunc(found, func(f registry.Tool) bool { return f.Name == t.Name })
		})...)
	}
	res := host.ToolSearchResult{Enabled: []host.ToolInfo{}}
	for _, t := range found {
		cl.Conversation.Enable(t.Name)
		res.Enabled = append(res.Enabled, host.ToolInfo{Name: t.Name, Description: t.Schema.Description})
	}
	for _, t := range reg.Tools() {
		if t.Deferred && offered(cl, t.Name) && !cl.Conversation.Enabled(t.Name) {
			res.Deferred++
		}
	}
	return res, nil
}

// Search returns the deferred tools of reg that match query best, at most
// five: each word of the query counts three times where the tool's name
// holds it and once where its description does. Only tools for which
// consider is true are scored.
func Search(reg *registry.Registry, query string, consider func(registry.Tool) bool) []registry.Tool {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	type scored struct {
		t     registry.Tool
		score int
	}
	var hits []scored
	for _, t := range reg.Tools() {
		if !t.Deferred || !consider(t) {
			continue
		}
		name, desc := strings.ToLower(t.Name), strings.ToLower(t.Schema.Description)
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 3
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{t, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	var out []registry.Tool
	for _, h := range hits[:min(len(hits), maxFound)] {
		out = append(out, h.t)
	}
	return out
}
