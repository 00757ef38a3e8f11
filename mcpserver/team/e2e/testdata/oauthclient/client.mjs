// The official TypeScript MCP SDK's client signs in to the team front end as a host does: a 401
// sends it to the server's metadata (RFC 9728, RFC 8414), it registers (RFC 7591) or names itself
// by a Client ID Metadata Document, starts the authorization with PKCE, and after the browser
// step exchanges the code; later it refreshes. The "browser" here follows the redirects: the
// server's approval page (allowed), the fake GitHub (which approves at once), back to the server,
// and on to this client's redirect URI, where the code is taken.
//
// In: SERVER_URL (…/mcp), REDIRECT_URL (loopback; nothing needs to listen), CLIENT_METADATA_URL
// (optional: use a Client ID Metadata Document instead of registering), PR (owner/repo#n).
// Out: one JSON line on stdout with what happened; failures on stderr, exit 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const serverUrl = new URL(process.env.SERVER_URL);
const redirectUrl = process.env.REDIRECT_URL;
const metadataUrl = process.env.CLIENT_METADATA_URL || undefined;
const pr = process.env.PR;

class Provider {
  constructor() {
    this.info = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.authorizationUrl = undefined;
    this.refreshes = [];
    this.clientMetadataUrl = metadataUrl;
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: "prmonitor e2e (TypeScript SDK)",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) {
    if (this.saved?.refresh_token) this.refreshes.push(this.saved.refresh_token);
    this.saved = tokens;
  }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

// browse follows the authorization from its URL to the client's redirect URI, as a browser with
// cookies would, approving on the server's page; it returns the URL the browser was sent to.
async function browse(start) {
  const jar = new Map();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  };
  let url = start.toString();
  let init = {};
  const pages = [];
  for (let hops = 0; hops < 20; hops++) {
    if (url.startsWith(redirectUrl)) return { landed: new URL(url), pages };
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers || {}), cookie: cookieHeader() } });
    keep(res);
    init = {};
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location"), url).toString();
      continue;
    }
    const body = await res.text();
    pages.push({ url, status: res.status });
    const m = body.match(/name="request" value="([^"]+)"/);
    if (res.status !== 200 || !m) throw new Error(`the browser stopped at ${url}: HTTP ${res.status}: ${body.slice(0, 300)}`);
    url = new URL("consent", url).toString();
    init = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ request: m[1], decision: "allow" }).toString() };
  }
  throw new Error("too many redirects");
}

// text is a tool result's text; a tool error is a failure of the run.
function text(result) {
  const t = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
  if (result.isError) throw new Error(`a tool error: ${t}`);
  return t;
}

async function connect(provider) {
  const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  const client = new Client({ name: "prmonitor-e2e-ts", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

async function main() {
  const out = {};
  const provider = new Provider();
  const first = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  const probe = new Client({ name: "prmonitor-e2e-ts", version: "1.0.0" });
  try {
    await probe.connect(first);
    throw new Error("connected without signing in");
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  out.client_id = provider.info?.client_id;
  const auth = new URL(provider.authorizationUrl);
  out.authorize = Object.fromEntries(["code_challenge_method", "resource", "scope"].map((k) => [k, auth.searchParams.get(k)]));
  const { landed, pages } = await browse(provider.authorizationUrl);
  out.pages = pages;
  out.iss = landed.searchParams.get("iss");
  await first.finishAuth(landed.searchParams.get("code"));
  out.first_access = provider.saved.access_token;
  out.first_refresh = provider.saved.refresh_token;

  let { client, transport } = await connect(provider);
  out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
  out.start = text(await client.callTool({ name: "pr_monitor_start", arguments: { pr } }));
  out.status = text(await client.callTool({ name: "pr_monitor_status", arguments: {} }));
  await transport.close();

  // The access token goes bad (as when it expires): the SDK refreshes on the 401 and goes on.
  provider.saved = { ...provider.saved, access_token: "pma_no-longer-valid" };
  ({ client, transport } = await connect(provider));
  out.after_refresh = text(await client.callTool({ name: "pr_monitor_status", arguments: {} }));
  out.refreshed = provider.refreshes.length > 0 && provider.saved.refresh_token !== out.first_refresh;
  out.second_access = provider.saved.access_token;
  await transport.close();

  // Someone replays the rotated refresh token: the server revokes the whole sign-in.
  const meta = await (await fetch(new URL("/.well-known/oauth-authorization-server", serverUrl))).json();
  const replay = await fetch(meta.token_endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: out.first_refresh, client_id: provider.info.client_id }).toString() });
  out.replay = { status: replay.status, error: (await replay.json()).error };
  const after = await fetch(serverUrl, { method: "POST", headers: { authorization: `Bearer ${provider.saved.access_token}`,
    "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } }) });
  out.after_replay = { status: after.status, www_authenticate: after.headers.get("www-authenticate") };
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => {
  process.stderr.write(`${e?.stack || e}\n`);
  process.exit(1);
});
