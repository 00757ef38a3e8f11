// Package front is the team deployment's HTTP front end (prmonitor serve --http): the same MCP
// tools as the embedded server, over Streamable HTTP at /mcp, each user authenticated by a bearer
// token; the live board at /; a health check at /healthz (docs/deploy.md,
// docs/decisions/0002-temporal-past-one-machine.md). /mcp and the board answer only their own
// Host names and Origins, and /mcp reads bodies within caps before the token is checked
// (httpguard); an MCP session id this process did not mint for the user is 404.
//
// The tools are mcpserver's definitions behind mcpserver's argument checks (the toolsnaps are the
// contract of both front ends), with handlers over Temporal: pr_monitor_start and start_all are
// SignalWithStart on the monitor's workflow (start_all after one search, which a worker runs:
// this process holds no GitHub token), pr_monitor_next_step is the workflow's NextStep Update
// (validated by the machine before it is accepted), pr_monitor_status a Query plus a visibility
// search, pr_monitor_stop a signal. Each monitor has an owner; a user sees and drives only their
// own, and anyone else's monitor id is an unknown monitor.
//
// Questions reach the user as the embedded server's do: as an elicitation form when the client
// declares it can show one (inside the call: the 2025-11-25 era on the call's own stream, the
// 2026-07-28 era as an input_required result), else as ask_user for the agent to relay. A merge
// (or any choice that merges) is taken only from the user's own answer in a form where the host
// can show one: an agent's user_chose of a merge is answered with the form instead.
package front
