/**
 * Preloaded (NODE_OPTIONS=--require) into every Node process of `npm start` by
 * `npm run bench:core -- --profile`: samples the CPU with V8's profiler from start-up and writes
 * $BENCH_PROFILE_DIR/CPU.<date>.<time>.<pid>.0.001.cpuprofile (the name `--cpu-prof` would use)
 * when the process exits. Node 20 refuses `--cpu-prof` in NODE_OPTIONS, hence this file.
 */
"use strict";
const { Session } = require("node:inspector");
const { writeFileSync } = require("node:fs");
const path = require("node:path");

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  // Callbacks of an in-process session run synchronously, so this works inside 'exit' too.
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 }); // µs
  session.post("Profiler.start");
  let written = false;
  process.on("exit", () => {
    if (written) return;
    written = true;
    session.post("Profiler.stop", (error, result) => {
      if (error || !result) return;
      const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", ".").slice(0, 15);
      writeFileSync(path.join(dir, `CPU.${stamp}.${process.pid}.0.001.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
