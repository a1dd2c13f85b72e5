// A local proxy that adds "Authorization: Bearer TOKEN" to every request
// and forwards it to TARGET: the MCP conformance suite (0.1.13) cannot send
// a header, and /mcp answers nothing without a token. Everything else,
// Host and Origin included, goes through unchanged. Prints its /mcp URL.
// usage: node mcp-bearer-proxy.js http://127.0.0.1:PORT TOKEN
const http = require("http");
const [target, token] = process.argv.slice(2);
const up = new URL(target);
const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: "Bearer " + token };
  const fwd = http.request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers }, r => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  fwd.on("error", e => { res.writeHead(502); res.end(String(e)); });
  req.pipe(fwd);
});
server.listen(0, "127.0.0.1", () => console.log("http://localhost:" + server.address().port + "/mcp"));
