/** Where to go after signing in: only a path on this site, so a crafted link cannot send shoppers away. */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}
