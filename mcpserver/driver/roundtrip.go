package driver

import (
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// inputRequest is one question for the client: a form for the user or a completion for the host's
// model. Exactly one field is set.
type inputRequest struct {
	elicit *mcp.ElicitationParams
	sample *mcp.CreateMessageParams
}

// roundTrip puts one input request to the client, for the open question or task st names.
//
// A 2026-07-28 client gets it in an input_required result and calls again with the answer, which
// resume reads. An earlier client is sent the server-initiated request (elicitation/create,
// sampling/createMessage) here, and its answer resumes this very call. mcp-go's legacy bridge
// would do the same, but it fails the whole tool call (JSON-RPC -32603) when the client refuses
// or fails the request, after the machine has moved on; so this server does its own bridging.
//
// A request the client refuses or fails (an error instead of an answer) takes the path of a client
// without that capability, in the same call: fallback runs with the capability switched off for
// the rest of the call (a question goes to the agent as ask_user; an explanation, a reply or a
// classification falls to the agent, sampling_unavailable in its context).
func (d *Driver) roundTrip(st RequestState, r inputRequest, fallback func() Outcome) Outcome {
	if mcp.IsModernProtocol(server.RequestProtocolVersion(d.ctx)) {
		token, err := d.h.Seal(st)
		if err != nil {
			return failure(err)
		}
		b := server.NewInputRequestBuilder(token)
		if r.elicit != nil {
			b.Elicit(inputAnswer, *r.elicit)
		} else {
			b.Sample(InputSample, *r.sample)
		}
		return Outcome{Kind: delivered, Request: b.ToolResult()}
	}
	id, resp, err := d.fulfil(r)
	if r.elicit != nil {
		d.h.Settled(d.mon) // answered, refused, or the call ended
	}
	if err != nil {
		if d.ctx.Err() != nil {
			return d.cancelled()
		}
		what := "sampling"
		if r.elicit != nil {
			what = "elicitation"
			d.client.noElicitation = true
		} else {
			d.client.noSampling = true
		}
		d.mon.Note("answer", "the client refused or failed the "+what+" request ("+text.Error(err)+"); going on without it", nil)
		return fallback()
	}
	d.rounds = st.Rounds
	d.responses = mcp.InputResponses{id: resp}
	return d.resume(st)
}

// fulfil sends the server-initiated request to a client of an era before multi round-trip
// requests, and waits for its answer.
func (d *Driver) fulfil(r inputRequest) (string, mcp.InputResponse, error) {
	if r.elicit != nil {
		done := d.taskAsks() // a task is input_required while its question is out
		res, err := d.h.Elicit(d.ctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: *r.elicit})
		done()
		if err == nil && res == nil {
			err = errors.New("no elicitation result")
		}
		if err != nil {
			return "", mcp.InputResponse{}, err
		}
		return inputAnswer, mcp.NewElicitationInputResponse(*res), nil
	}
	res, err := d.h.Sample(d.ctx, mcp.CreateMessageRequest{
		Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}, CreateMessageParams: *r.sample})
	if err == nil && res == nil {
		err = errors.New("no sampling result")
	}
	if err != nil {
		return "", mcp.InputResponse{}, err
	}
	return InputSample, mcp.NewSamplingInputResponse(*res), nil
}
