// Verifies one delivery with the official Standard Webhooks and Svix
// libraries. Input on stdin: {"body": "...", "headers": {...}, "secrets":
// ["whsec_..."]}. Output: for each secret, what each library said ("ok"
// or its error).
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const { body, headers, secrets } = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const verdict = (verify) => {
  try {
    verify();
    return "ok";
  } catch (e) {
    return String(e && e.message ? e.message : e);
  }
};
const out = secrets.map((secret) => ({
  standardwebhooks: verdict(() => new StandardWebhook(secret).verify(body, headers)),
  svix: verdict(() => new SvixWebhook(secret).verify(body, headers)),
}));
process.stdout.write(JSON.stringify(out));
