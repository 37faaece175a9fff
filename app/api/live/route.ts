export const dynamic = "force-dynamic";

/** Liveness: this process answers. It asks nothing of Redis or MySQL, whose trouble a restart would not mend. */
export function GET() {
  return Response.json({ live: true }, { headers: { "cache-control": "no-store" } });
}
