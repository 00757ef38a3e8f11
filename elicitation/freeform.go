package elicitation

// Classification is what became of a free-text answer before it reached the agent.
type Classification string

// Classification outcomes.
const (
	// ClassifiedCustom: sampling read the answer as an instruction that is none of the choices.
	ClassifiedCustom Classification = "custom_instruction"
	// ClassifiedUnavailable: the client offers no sampling, or sampling failed.
	ClassifiedUnavailable Classification = "unavailable"
)

// FreeformReason says why the agent is asked to interpret an answer.
type FreeformReason string

// Reasons for an interpret_freeform task.
const (
	ReasonCustomInstruction   FreeformReason = "sampling_classified_as_custom_instruction"
	ReasonSamplingUnavailable FreeformReason = "sampling_unavailable"
)

// ReasonFor maps a classification to the task's reason.
func ReasonFor(c Classification) FreeformReason {
	if c == ClassifiedCustom {
		return ReasonCustomInstruction
	}
	return ReasonSamplingUnavailable
}

// UserReply is the user's own words, verbatim, and what classification made of them.
type UserReply struct {
	Text           string         `json:"text"`
	IsFreeform     bool           `json:"is_freeform"`
	Classification Classification `json:"classification"`
	Reasoning      string         `json:"reasoning,omitempty"`
}

// Elicited is the question as the user saw it.
type Elicited struct {
	Question string   `json:"question"`
	Choices  []Choice `json:"choices"`
}

// BoundaryNotice opens every interpret_freeform task. The user answered inside an elicitation
// prompt, which the agent's chat history does not contain; without this the agent tends to dismiss
// the answer as stale.
const BoundaryNotice = "Context boundary: the user answered a prompt shown by the prmonitor server, " +
	"outside your chat history. Their reply is in context.user_reply.text; it is current and authoritative."
