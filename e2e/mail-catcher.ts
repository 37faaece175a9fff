/**
 * The mail catcher for the Playwright run (a webServer entry of playwright.config.ts): a real SMTP
 * server on E2E_SMTP_PORT (server/testing/smtp-catcher.ts), which the app's SMTP_URL names, and an
 * HTTP mailbox on E2E_MAILBOX_PORT: `GET /mail?to=<address>` answers that address's messages,
 * newest last (JSON), `GET /health` 200. Runs until Playwright stops it (SIGTERM / SIGINT).
 */
import { createServer } from "node:http";
import { startSmtpCatcher } from "../server/testing/smtp-catcher";
import { e2eMailPort } from "./e2e-env";

const smtp = await startSmtpCatcher({ port: e2eMailPort("smtp") });
const mailbox = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://mailbox");
  if (url.pathname === "/health") return void response.end("ok");
  if (url.pathname !== "/mail") return void response.writeHead(404).end();
  const to = (url.searchParams.get("to") ?? "").toLowerCase();
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(smtp.messages.filter((message) => message.to.includes(to))));
});
await new Promise<void>((resolve) => mailbox.listen(e2eMailPort("mailbox"), "127.0.0.1", resolve));
console.log(`[e2e mail] SMTP on ${smtp.url}, mailbox on http://127.0.0.1:${e2eMailPort("mailbox")}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  mailbox.close();
  await smtp.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
