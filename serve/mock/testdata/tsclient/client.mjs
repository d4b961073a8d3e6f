// The TypeScript SDK's client playing serve/mock/testdata/everything.jsonl's
// session against `mcpsnoop mock` (the command after --), the same requests
// as the Go SDK's client that recorded it (package serve/mock/mocktest).
// It prints one line a request: {"method","params","result"|"error"}, the
// result as JSON.stringify makes it of what arrived.
//
//   MCPSNOOP_TS_SDK=DIR node client.mjs -- mcpsnoop mock RECORDING
//
// DIR holds node_modules/@modelcontextprotocol/sdk.
import path from "node:path";

const sdk = path.join(process.env.MCPSNOOP_TS_SDK, "node_modules/@modelcontextprotocol/sdk/dist/esm");
const { Client } = await import(path.join(sdk, "client/index.js"));
const { StdioClientTransport } = await import(path.join(sdk, "client/stdio.js"));
const { CreateMessageRequestSchema, ElicitRequestSchema } = await import(path.join(sdk, "types.js"));

const argv = process.argv.slice(process.argv.indexOf("--") + 1);
const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: "inherit" });
const client = new Client({ name: "mcpsnoop-ts-test", version: "1" }, { capabilities: { sampling: {}, elicitation: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  model: "mcpsnoop-test", role: "assistant", content: { type: "text", text: "hi from the client" },
}));
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));

await client.connect(transport);

// What went out and what came back, as the transport carried it.
const sent = new Map();
const send = transport.send.bind(transport);
transport.send = (m, o) => {
  if (m.method !== undefined && m.id !== undefined) sent.set(m.id, m);
  return send(m, o);
};
const onmessage = transport.onmessage;
transport.onmessage = (m, extra) => {
  if (m.method === undefined && m.id !== undefined && sent.has(m.id)) {
    const q = sent.get(m.id);
    const line = { method: q.method, params: q.params ?? null };
    if ("result" in m) line.result = JSON.stringify(m.result);
    else line.error = m.error;
    process.stdout.write(JSON.stringify(line) + "\n");
  }
  onmessage(m, extra);
};

const tools = await client.listTools();
if (tools.tools.length === 0) throw new Error("no tools");
await client.callTool({ name: "echo", arguments: { message: "hello from mcpsnoop" } });
await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
  undefined, { onprogress: () => {} });
await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "Say hi", maxTokens: 16 } });
await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
await client.callTool({ name: "get-structured-content", arguments: { location: "New York" } });
await client.listPrompts();
await client.getPrompt({ name: "simple-prompt" });
const res = await client.listResources();
await client.readResource({ uri: res.resources[0].uri });
await client.close();
