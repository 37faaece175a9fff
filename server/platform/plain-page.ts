import type { Lang } from "./i18n";

/**
 * A small self-contained HTML page for answers served outside React (the front door's "starting…"
 * page, the queue board's refusal): inline styles only, no font, script or file from anywhere,
 * so it renders the same offline and before Next.js is up.
 */
export interface PlainPage {
  lang: Lang;
  title: string;
  heading: string;
  body: string;
  link?: { href: string; text: string };
  /** Seconds after which the browser loads the page again (`<meta http-equiv=refresh>`). */
  refreshSeconds?: number;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function plainPageHtml(page: PlainPage): string {
  const refresh = page.refreshSeconds === undefined ? "" : `\n<meta http-equiv="refresh" content="${page.refreshSeconds}">`;
  const link = page.link ? `\n<p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>` : "";
  return `<!doctype html>
<html lang="${page.lang === "zh" ? "zh-CN" : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${escapeHtml(page.title)}</title>
<style>
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;font-family:system-ui,-apple-system,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif;background:#f6f7f9;color:#1f2933}
main{max-width:28rem;margin:1rem;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 .75rem}p{line-height:1.55;margin:.5rem 0}a{color:#c2410c}
</style>
</head>
<body>
<main>
<h1>${escapeHtml(page.heading)}</h1>
<p>${escapeHtml(page.body)}</p>${link}
</main>
</body>
</html>
`;
}
