package persona

// The names of the built-in personas: Claude Code's, so that scripts
// written for it find them.
const (
	GeneralPurpose = "general-purpose"
	Explore        = "Explore"
	Plan           = "Plan"
)

// readOnlyTools are the tools of the read-only built-ins. Bash is among
// them because reading a repository often means running git log or a
// test listing; a read-only persona's Bash runs in the read-only sandbox.
func readOnlyTools() []string { return []string{"Read", "Glob", "Grep", "Bash"} }

const generalPurposePrompt = `You are a general-purpose agent. You research questions, search code and carry out tasks of several steps.
Find things out with your tools rather than guessing: search broadly first, then read what matters.
When you change something, make the smallest change that does the task, and check it.
End with what you found or did, naming the files and lines it concerns.`

const explorePrompt = `You explore a codebase to answer a question, and you change nothing.
Find files by name pattern, search their contents, and read the parts that matter. Use shell commands only to look (git log, git grep, listing files), never to modify.
Be quick and thorough: try more than one search when the first finds nothing, and follow references to where things are defined.
Answer with what you found, citing each file path with line numbers.`

const planPrompt = `You research a codebase and write an implementation plan; you change nothing.
Read the code the task concerns, the code that calls it and its tests, until you understand how it works now.
Then write the plan: the goal in one sentence; the files to change, and why each; the steps in the order to take them; the risks and how to check each one; and the tests to add or run.
Name real files, functions and lines. If the task cannot be done as asked, say so and propose the nearest thing that can.`

// Builtins returns fresh copies of the built-in personas, in name order.
func Builtins() []Persona {
	return []Persona{
		{Name: Explore, Description: "Read-only codebase exploration: finds files, searches code and reads it to answer a question.",
			Tools: readOnlyTools(), ReadOnly: true, Prompt: explorePrompt, Source: BuiltInSource},
		{Name: Plan, Description: "Read-only research that ends in an implementation plan.",
			Tools: readOnlyTools(), ReadOnly: true, Prompt: planPrompt, Source: BuiltInSource},
		{Name: GeneralPurpose, Description: "Research, code search and multi-step tasks, with every tool the sandbox mode allows.",
			Prompt: generalPurposePrompt, Source: BuiltInSource},
	}
}
