package host

// The operations of version 1, and their arguments and results. Fields are
// added, never renamed or removed.
const (
	OpPing       = "ping"        // Ping → Pong
	OpAgentStart = "agent.start" // AgentStart → Agent
	OpAgentSend  = "agent.send"  // AgentSend → Agent
	OpAgentWait  = "agent.wait"  // AgentRef → Agent
	OpAgentKill  = "agent.kill"  // AgentRef → Agent
	OpAgentList  = "agent.list"  // nothing → AgentList
	OpSkillList  = "skill.list"  // nothing → SkillList
	OpSkillLoad  = "skill.load"  // SkillLoad → Skill
	OpToolSearch = "tool.search" // ToolSearch → ToolSearchResult
	OpJobStart   = "job.start"   // JobStart → Job
	OpJobRead    = "job.read"    // JobRead → Job
	OpJobKill    = "job.kill"    // JobRef → Job
	OpJobList    = "job.list"    // nothing → JobList
)

// Pong is the answer to ping: who is asking, as the host sees it.
type Pong struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`  // the calling tool
	Call    string `json:"call"`  // the call's id
	Depth   int    `json:"depth"` // 0 for the user's conversation, 1 for a sub-agent's, ...
}

// AgentStart starts a sub-agent.
type AgentStart struct {
	Prompt string `json:"prompt"`
	// Model is the model to use; "" for the caller's.
	Model string `json:"model,omitempty"`
	// Tools are the only tools the sub-agent may use; none for the
	// caller's.
	Tools []string `json:"tools,omitempty"`
	// Background answers at once with the sub-agent's id; otherwise the
	// host answers when the sub-agent is done (or when the request's
	// timeout comes, with the status "running").
	Background bool `json:"background,omitempty"`
}

// AgentSend gives a sub-agent that is done another prompt, in the same
// conversation.
type AgentSend struct {
	ID         string `json:"id"`
	Prompt     string `json:"prompt"`
	Background bool   `json:"background,omitempty"`
}

// AgentRef names a sub-agent.
type AgentRef struct {
	ID string `json:"id"`
}

// Agent is a sub-agent's state.
type Agent struct {
	ID     string `json:"id"`
	Status string `json:"status"` // running, done, failed, cancelled or killed
	// Answer is the sub-agent's final answer, once it is done.
	Answer string `json:"answer,omitempty"`
	// Error says why it failed.
	Error     string `json:"error,omitempty"`
	Model     string `json:"model,omitempty"`
	Prompt    string `json:"prompt,omitempty"` // the first line of its latest prompt, in listings
	ToolTurns int    `json:"tool_turns"`
	// LimitReached says it stopped at max_tool_turns, still calling tools.
	LimitReached bool `json:"limit_reached,omitempty"`
}

// AgentList lists the sub-agents the caller's conversation started.
type AgentList struct {
	Agents []Agent `json:"agents"`
}

// Skill is a skill as listed, or loaded (with its Text).
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools are the tools its front matter names; loading the skill
	// offers them.
	Tools []string `json:"tools,omitempty"`
	Text  string   `json:"text,omitempty"`
	// Missing are the tools it names that ikigai does not have.
	Missing []string `json:"missing,omitempty"`
}

// SkillList lists the skills.
type SkillList struct {
	Skills []Skill `json:"skills"`
}

// SkillLoad loads a skill.
type SkillLoad struct {
	Name string `json:"name"`
}

// ToolSearch finds deferred tools by the words of Query, or by Names, and
// enables them for the rest of the conversation.
type ToolSearch struct {
	Query string   `json:"query,omitempty"`
	Names []string `json:"names,omitempty"`
}

// ToolInfo is a tool found by a search.
type ToolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ToolSearchResult is what a search found and enabled.
type ToolSearchResult struct {
	Enabled []ToolInfo `json:"enabled"`
	// Deferred is how many deferred tools are still not enabled.
	Deferred int `json:"deferred"`
}

// JobStart starts a background job: a shell command that keeps running
// after the call.
type JobStart struct {
	Command string `json:"command"`
	// Keep leaves the job running when the session ends; the next session
	// started in the same directory lists it.
	Keep bool `json:"keep,omitempty"`
}

// JobRef names a job.
type JobRef struct {
	ID string `json:"id"`
}

// JobRead reads what a job printed since the last read.
type JobRead struct {
	ID string `json:"id"`
	// MaxBytes caps the output returned, which keeps its end; 0 for 32 KiB.
	MaxBytes int `json:"max_bytes,omitempty"`
}

// Job is a background job's state.
type Job struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	PID     int    `json:"pid"`
	Status  string `json:"status"` // running, exited or killed
	// ExitCode is the command's exit status once it exited (128+N for
	// signal N).
	ExitCode *int `json:"exit_code,omitempty"`
	Kept     bool `json:"kept,omitempty"`
	// Output is what the job printed since the last read, for job.read.
	Output *string `json:"output,omitempty"`
	// Dropped is how many bytes of that were lost: the job printed more
	// than its ring or MaxBytes holds.
	Dropped int64 `json:"dropped,omitempty"`
}

// JobList lists the session's jobs.
type JobList struct {
	Jobs []Job `json:"jobs"`
}
