// Command skill-tool lists the skills ikigai knows and loads one into the
// conversation: its text comes back as the result, and the tools its front
// matter names are offered from then on. It asks ikigai through the host
// API (toolsdk/host).
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

type params struct {
	Name string `json:"name,omitempty" description:"The skill to load; leave it out to list the skills"`
}

var tool = toolsdk.New[params, any](toolsdk.Schema{
	Name: "skill",
	Description: "List the skills (knowledge written for you: a domain, a procedure, the tools that go with them), or load one " +
		"by name to read it. Load a skill when the task is in its domain, before working on it; loading one may also make " +
		"more tools available.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (any, error) {
	c, err := host.FromEnv()
	if err != nil {
		return nil, err
	}
	if p.Name == "" {
		var list host.SkillList
		err := c.Call(ctx, host.OpSkillList, nil, &list)
		return list, err
	}
	var sk host.Skill
	if err := c.Call(ctx, host.OpSkillLoad, host.SkillLoad{Name: p.Name}, &sk); err != nil {
		return nil, err
	}
	if len(sk.Text) > maxText {
		// A result must fit a tool's output; the user's /load reads a
		// skill whole.
		cut := strings.LastIndexByte(sk.Text[:maxText], '\n') + 1
		sk.Text = sk.Text[:cut] + fmt.Sprintf("\n[The rest of the skill, %d KiB in all, is cut here.]\n", len(sk.Text)>>10)
	}
	return sk, nil
}

// maxText is the most of a skill's text a result holds.
const maxText = 48 << 10
