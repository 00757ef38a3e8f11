// Package monitor is the monitor's lifecycle in the stdio server: one watched pull request with its
// machine, what the last poll saw and the one call driving it (Monitor, its CallSlot), the
// registry of a process's monitors that resumes the ones an earlier process saved (Registry), and
// their persistence (Persister: the state directory's StoreState, or MemoryState) with the event
// log each step writes (StepEvent). It speaks no MCP and knows no transport: the server (package
// mcpserver) begins and ends its calls, and the driver steps the machine through Monitor's methods
// (docs/architecture.md#one-next_step-call).
package monitor
