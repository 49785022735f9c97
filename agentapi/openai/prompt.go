package openai

import (
	"fmt"
	"strings"
)

// workerPersona is the system prompt of every child. A child talks to a
// program, not a person: whatever it ends with is returned to the script.
const workerPersona = `You are a worker agent carrying out one task for an automated workflow.
Your final message is your return value: it is handed to a program as it is, so make it the complete answer itself, with no preamble, no sign-off and no offer of further help.
Nobody can answer questions: never ask questions back. If something is unclear, make the most reasonable assumption and, when it matters, state it in one short sentence.
Be concise. Use the tools you are given when they help; do not describe tool calls you have not made.`

// systemPrompt is the worker framing, then the persona's own prompt (the
// body of its file; "" without a persona), then what a schema call needs
// to know.
func systemPrompt(role string, schemaText []byte, toolMode bool) string {
	var b strings.Builder
	b.WriteString(workerPersona)
	if role = strings.TrimSpace(role); role != "" {
		b.WriteString("\n\n")
		b.WriteString(role)
	}
	switch {
	case schemaText == nil:
	case toolMode:
		b.WriteString("\n\nWhen you have the answer, call the tool " + finalAnswerTool + " with it as the arguments. Its arguments must satisfy this JSON Schema:\n")
		b.Write(schemaText)
	default:
		b.WriteString("\n\nYour final message must be only a JSON value, with no other text and no code fence, that satisfies this JSON Schema:\n")
		b.Write(schemaText)
	}
	return b.String()
}

// The user messages the loop adds.
const emptyReply = "Your reply was empty. Give your final answer now."

func schemaRetryMessage(err error, toolMode bool) string {
	if toolMode {
		return fmt.Sprintf("Those arguments do not satisfy the schema: %v. Call %s again with corrected arguments.", err, finalAnswerTool)
	}
	return fmt.Sprintf("Your answer does not satisfy the schema: %v. Reply again with only the corrected JSON value.", err)
}

// toolRequiredMessage asks again for the final_answer call after the
// endpoint let the model answer in plain text.
const toolRequiredMessage = "Give your answer by calling the " + finalAnswerTool + " tool, whose arguments are the answer; do not answer in plain text."

func lastTurnMessage(schema, toolMode bool) string {
	switch {
	case toolMode:
		return "You have used all your turns. Do not call any other tool: call " + finalAnswerTool + " now with your best answer."
	case schema:
		return "You have used all your turns. Do not call tools. Reply now with your best answer as only the JSON value the schema asks for."
	}
	return "You have used all your turns. Do not call tools. Give your best final answer now."
}

// trimmedMessage asks for the final answer after the history was trimmed
// to fit the context window.
func trimmedMessage(schema, toolMode bool) string {
	const why = "The conversation grew past the model's context window, so the results of your earlier tool calls were removed. "
	switch {
	case toolMode:
		return why + "Do not call any other tool: call " + finalAnswerTool + " now with your best answer from what you found."
	case schema:
		return why + "Do not call tools. Reply now with your best answer from what you found, as only the JSON value the schema asks for."
	}
	return why + "Do not call tools. Give your best final answer now from what you found."
}
