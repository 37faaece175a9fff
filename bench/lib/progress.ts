/** A one-line progress bar on stderr (redrawn in place on a terminal, a line every 5 s in a log). */
export function progressBar(label: string) {
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  return {
    update({
      attempts,
      total,
      requests,
      seconds,
      queued,
    }: {
      attempts: number;
      total: number;
      requests: number;
      seconds: number;
      queued: number;
    }) {
      const share = total ? attempts / total : 0;
      const width = 30;
      const filled = Math.round(share * width);
      const line = `${label.padEnd(28)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${(share * 100).toFixed(1).padStart(5)}%  ${attempts.toLocaleString("en-US")}/${total.toLocaleString("en-US")} attempts  ${Math.round(requests / Math.max(seconds, 0.001)).toLocaleString("en-US")} req/s  ${queued.toLocaleString("en-US")} queued  ${seconds.toFixed(0)} s`;
      if (tty) process.stderr.write(`\r${line}`);
      else if (seconds - lastLine >= 5) {
        lastLine = seconds;
        process.stderr.write(`${line}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write("\n");
    },
  };
}
