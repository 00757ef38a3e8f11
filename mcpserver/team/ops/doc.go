// Package ops is how an operator watches the team deployment run (docs/deploy.md, "Metrics and
// alerts"): the Prometheus registry both processes serve at /metrics, the bridge that carries
// Temporal's SDK metrics into it, the HTTP middleware that counts requests by route and status,
// liveness apart from readiness, the log format, and the drain that ends a server without cutting
// the calls and deliveries in flight.
//
// The Prometheus client (prometheus/client_golang) rather than OpenTelemetry: the deployment is
// scraped by Prometheus, the client is what Prometheus itself publishes, and it needs no SDK,
// exporter or collector between the process and the scrape.
package ops
