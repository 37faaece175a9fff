/**
 * The node command line of a seckill service process, for `npm start` and the test and bench
 * harness alike. A young generation of 64 MB semi-spaces (V8's default is 16 MB): every crowd
 * request leaves short-lived objects behind, and a larger nursery lets them die there, so the
 * service spends less of its CPU in scavenges at peak.
 */
export const SECKILL_SERVICE_ARGS = ["--max-semi-space-size=64", "--import", "tsx", "server/cli/seckill.ts"];
