import http from "node:http";
import type { ChildProcess } from "node:child_process";
import type { FrontDoorHandover } from "../front-door/handover";
import { headerReader, startingAnswer } from "./starting-page";

/**
 * PORT is opened once, by `npm start`'s launcher, and answered from the first second: a
 * "starting…" page (503) while the build, migrations and processes come up. When the processes
 * are healthy the launcher hands the listening socket itself to the seckill services over their
 * IPC channel (Node passes the handle), which serve it from then on as the front door
 * (server/front-door/front-door.ts), and stops accepting on it: PORT never refuses a connection.
 */
export interface StartingDoor {
  /** Hands PORT to these processes (spawned with an IPC channel) and stops answering on it here. */
  handOver(to: readonly ChildProcess[], webPorts: number[]): Promise<void>;
  close(): Promise<void>;
}

export function openStartingDoor(port: number, host: string): Promise<StartingDoor> {
  const server = http.createServer((req, res) => {
    const answer = startingAnswer(new URL(req.url ?? "/", "http://front-door").pathname, headerReader(req.headers));
    // Closed after each answer, and a body sent meanwhile is not read: the next request meets the
    // front door, never this page on a half-read connection.
    answer.headers.connection = "close";
    res.writeHead(answer.status, answer.headers);
    res.end(req.method === "HEAD" ? undefined : answer.body);
  });
  // A starting page is no reason to hold a slow client.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
    }));
  return new Promise((resolve, reject) => {
    // PORT taken by another program: one clear failure rather than an unhandled error event.
    server.once("error", reject);
    server.listen(port, host, () =>
      resolve({
        async handOver(to, webPorts) {
          const message: FrontDoorHandover = { type: "front-door", webPorts };
          await Promise.all(
            to.map(
              (child) => new Promise<void>((sent, failed) => void child.send(message, server, (error) => (error ? failed(error) : sent()))),
            ),
          );
          await close();
        },
        close,
      }),
    );
  });
}
