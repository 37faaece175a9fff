import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";
import { freePort } from "../lib/net";

/**
 * A real SMTP server for tests (smtp-server, in this process): it accepts every message on a
 * loopback port and keeps it, parsed (mailparser), so a test reads what the shop sent and follows
 * its link as a shopper would.
 */

export interface CaughtMail {
  from: string;
  /** The envelope's recipients (RCPT TO), lower-cased. */
  to: string[];
  subject: string;
  text: string;
  receivedAt: number;
}

export interface SmtpCatcher {
  port: number;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  messages: CaughtMail[];
  /** The first message to `to` received after `since` (epoch ms, default 0), waiting for it up to `timeoutMs`. */
  waitForMail(to: string, options?: { since?: number; timeoutMs?: number }): Promise<CaughtMail>;
  close(): Promise<void>;
}

export async function startSmtpCatcher(options: { port?: number } = {}): Promise<SmtpCatcher> {
  const port = options.port ?? (await freePort());
  const messages: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            receivedAt: Date.now(),
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitForMail(to, { since = 0, timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((message) => message.receivedAt >= since && message.to.includes(to.toLowerCase()));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no mail to ${to} within ${timeoutMs} ms (caught: ${messages.map((m) => m.to.join(",")).join("; ") || "none"})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The verification link in a mail's text (the first address with /verify?token=). */
export function verificationLinkIn(mail: Pick<CaughtMail, "text">): URL {
  const match = /https?:\/\/\S+\/verify\?token=[^\s]+/.exec(mail.text);
  if (!match) throw new Error(`no verification link in:\n${mail.text}`);
  return new URL(match[0]);
}
