/** A connection URL with its password replaced by `***`, for messages and logs (unchanged without one). */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unreadable URL)";
  }
}
