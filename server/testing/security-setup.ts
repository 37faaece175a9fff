import type { TestProject } from "vitest/node";
import { SHARED_SYSTEMS, startSharedSystem, type SharedSystemName } from "./shared-systems";

/**
 * The security project's globalSetup: its shared systems (shared-systems.ts), started side by side
 * once for all its files, and stopped after the last one.
 */
export default async function setup(project: TestProject) {
  const names = Object.keys(SHARED_SYSTEMS) as SharedSystemName[];
  const started = await Promise.allSettled(names.map((name) => startSharedSystem(name)));
  const running = started.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed) {
    await Promise.all(running.map((system) => system.stop()));
    throw failed.reason;
  }
  project.provide("sharedSystems", Object.fromEntries(running.map((system, i) => [names[i], system.info])));
  return async () => {
    // A system that died during the run shows in later files only as refused connections: its
    // own last words say why.
    for (const [i, { system }] of running.entries()) {
      if (system.process.exitCode !== null || system.process.signalCode !== null)
        console.error(`shared system "${names[i]}" died during the run:\n${system.output().slice(-6000)}`);
    }
    await Promise.all(running.map((system) => system.stop()));
  };
}
