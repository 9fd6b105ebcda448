// Command agent-tool starts sub-agents: conversations of their own, run by
// the ikigai that runs this tool (same providers, approval and sandbox),
// each with its own prompt, and optionally its own model and tools. It asks
// ikigai through the host API (toolsdk/host).
package main

import (
	"context"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

type params struct {
	Action     *string  `json:"action,omitempty" enum:"start,wait,send,kill,list" description:"start (the default) a sub-agent on prompt; wait for sub-agent id to finish; send sub-agent id, once done, another prompt; kill sub-agent id; list this conversation's sub-agents"`
	Prompt     string   `json:"prompt,omitempty" description:"start, send: the task, complete in itself: the sub-agent sees nothing of this conversation"`
	ID         string   `json:"id,omitempty" description:"wait, send, kill: the sub-agent's id, as start returned it"`
	Background bool     `json:"background,omitempty" description:"start, send: return the id at once and let the sub-agent work while you do; collect its answer with wait"`
	Model      string   `json:"model,omitempty" description:"start: the model to use (default: yours)"`
	Tools      []string `json:"tools,omitempty" description:"start: the only tools the sub-agent may use (default: yours)"`
}

var tool = toolsdk.New[params, any](toolsdk.Schema{
	Name: "agent",
	Description: "Start a sub-agent: another agent with a context of its own that does one task with the tools and returns " +
		"its final answer. Use it for self-contained work whose details you do not need (searching a large codebase, a " +
		"review, an investigation), and to do several things at once with background. Say everything the task needs in " +
		"the prompt; the sub-agent's own tool calls are approved as yours are.",
	// It changes nothing itself: what a sub-agent does is approved call by
	// call, so asking before starting one would only ask twice.
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (any, error) {
	action := "start"
	if p.Action != nil {
		action = *p.Action
	}
	// What each action needs is checked before anything is asked.
	for _, f := range map[string][]string{"start": {"prompt"}, "send": {"id", "prompt"}, "wait": {"id"}, "kill": {"id"}}[action] {
		if strings.TrimSpace(map[string]string{"prompt": p.Prompt, "id": p.ID}[f]) == "" {
			return nil, toolsdk.InvalidField(f)
		}
	}
	c, err := host.FromEnv()
	if err != nil {
		return nil, err
	}
	var out host.Agent
	switch action {
	case "start":
		err = c.Call(ctx, host.OpAgentStart, host.AgentStart{Prompt: p.Prompt, Model: p.Model, Tools: p.Tools, Background: p.Background}, &out)
	case "send":
		err = c.Call(ctx, host.OpAgentSend, host.AgentSend{ID: p.ID, Prompt: p.Prompt, Background: p.Background}, &out)
	case "wait", "kill":
		err = c.Call(ctx, "agent."+action, host.AgentRef{ID: p.ID}, &out)
	case "list":
		var list host.AgentList
		if err := c.Call(ctx, host.OpAgentList, nil, &list); err != nil {
			return nil, err
		}
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
