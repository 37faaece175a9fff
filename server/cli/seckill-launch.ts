/**
 * The node command line of a seckill service process, for `npm start` and the test and bench
 * harness alike. A young generation of 64 MB semi-spaces (V8's default is 16 MB): every crowd
 * request leaves short-lived objects behind, and with the default the service spent ~18 % of its
 * CPU at peak in scavenges, ~12 % with this (bench/README.md, profile notes).
 */
export const SECKILL_SERVICE_ARGS = ["--max-semi-space-size=64", "--import", "tsx", "server/cli/seckill.ts"];
