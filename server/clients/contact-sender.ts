import nodemailer, { type Transporter } from "nodemailer";

/**
 * Messages to a person's contact (an email address today; a phone number when an SMS adapter is
 * added beside these). Knows nothing of what a message is about: the caller writes it.
 */

export interface ContactMessage {
  subject: string;
  /** The whole message as plain text (what an SMS adapter would send). */
  text: string;
  html?: string;
  /** The one link the message asks the reader to open, for the log adapter to show on its own. */
  actionUrl?: string;
}

export interface ContactSender {
  /** Resolves once the message was handed over; rejects when it could not be (within the adapter's timeouts). */
  send(to: string, message: ContactMessage): Promise<void>;
  /** Waits for the sends in flight (each bounded by its timeouts), then lets the connection go. */
  close(): Promise<void>;
}

/** How long each SMTP step may take: a server that is down or slow fails the send, never hangs it. */
export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  socketMs: number;
}

export const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 5_000, greetingMs: 5_000, socketMs: 10_000 };

/** Sends through an SMTP server (SMTP_URL), a couple of pooled connections per process. */
export class SmtpSender implements ContactSender {
  private readonly transport: Transporter;
  private readonly inFlight = new Set<Promise<unknown>>();

  /**
   * `maxInFlight`: sends waiting for the pool at once; one more is refused at once, so a burst of
   * sign-ups while the server is slow cannot pile messages up in memory.
   */
  constructor(
    url: string,
    private readonly from: string,
    timeouts: SmtpTimeouts = SMTP_TIMEOUTS,
    private readonly maxInFlight = 500,
  ) {
    const parsed = new URL(url);
    this.transport = nodemailer.createTransport({
      host: parsed.hostname,
      port: Number(parsed.port) || (parsed.protocol === "smtps:" ? 465 : 587),
      secure: parsed.protocol === "smtps:",
      auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
      pool: true,
      maxConnections: 2,
      connectionTimeout: timeouts.connectionMs,
      greetingTimeout: timeouts.greetingMs,
      socketTimeout: timeouts.socketMs,
      dnsTimeout: timeouts.connectionMs,
    });
  }

  async send(to: string, message: ContactMessage): Promise<void> {
    if (this.inFlight.size >= this.maxInFlight) throw new Error(`${this.inFlight.size} messages are already waiting for the SMTP server`);
    const sending = this.transport.sendMail({ from: this.from, to, subject: message.subject, text: message.text, html: message.html });
    this.inFlight.add(sending);
    try {
      await sending;
    } finally {
      this.inFlight.delete(sending);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    this.transport.close();
  }
}

/**
 * Writes each message's link to the log instead of sending it: a developer's machine without a
 * mail server (SMTP_URL unset) still gets to follow the link.
 */
export class LogSender implements ContactSender {
  constructor(private readonly log: (fields: Record<string, unknown>, line: string) => void) {}

  async send(to: string, message: ContactMessage): Promise<void> {
    this.log(
      { to, subject: message.subject, link: message.actionUrl ?? message.text },
      `not mailed (SMTP_URL is not set): ${message.actionUrl ?? message.subject}`,
    );
  }

  async close(): Promise<void> {}
}
