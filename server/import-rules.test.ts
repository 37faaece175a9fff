import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The house rules of docs/architecture.md, read off the source: no import circle anywhere, arrows
// only run down (server/ never reaches into app/, worker/ or prisma/), and clients/ knows no domain.
const root = path.resolve(import.meta.dirname, "..");
const folders = ["app", "server", "worker", "prisma", "bench", "e2e"];
const sourceFile = /\.(ts|tsx)$/;

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "generated" || name.startsWith(".")) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listSources(full));
    else if (sourceFile.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function resolveImport(from: string, spec: string): string | undefined {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return undefined; // a package
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    try {
      if (statSync(candidate).isFile() && sourceFile.test(candidate)) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** file -> the project files it imports (type-only imports count: they tie the rooms together too). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of folders) {
    for (const file of listSources(path.join(root, folder))) {
      const text = readFileSync(file, "utf8");
      const targets = new Set<string>();
      for (const match of text.matchAll(importPattern)) {
        const target = resolveImport(file, (match[1] ?? match[2])!);
        if (target) targets.add(target);
      }
      graph.set(file, [...targets]);
    }
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return circles;
}

const rel = (file: string) => path.relative(root, file);
const isTest = (file: string) => /\.test\.tsx?$/.test(file) || rel(file).startsWith("server/testing/");

describe("import rules", () => {
  const graph = importGraph();

  it("finds the project's files and their imports", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(path.join(root, "server/import-rules.test.ts"))).toEqual([]);
  });

  it("has no import circle anywhere", () => {
    expect(importCircles(graph).map((circle) => circle.map(rel))).toEqual([]);
  });

  it("never imports from server/ into app/, worker/ or prisma/", () => {
    const upward = [...graph]
      .filter(([file]) => rel(file).startsWith("server/"))
      .flatMap(([file, targets]) => targets.filter((t) => /^(app|worker|prisma)\//.test(rel(t))).map((t) => `${rel(file)} -> ${rel(t)}`));
    expect(upward).toEqual([]);
  });

  // The generated Prisma client is the database client's own code, not the domain's.
  it("keeps server/clients/ free of the domain", () => {
    const domain = [...graph]
      .filter(([file]) => rel(file).startsWith("server/clients/") && !isTest(file))
      .flatMap(([file, targets]) =>
        targets.filter((t) => !/^server\/(clients|generated)\//.test(rel(t))).map((t) => `${rel(file)} -> ${rel(t)}`),
      );
    expect(domain).toEqual([]);
  });

  it("detects a circle and an upward arrow when one is there", () => {
    const a = "/x/server/a.ts";
    const b = "/x/server/b.ts";
    expect(
      importCircles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([[a, b]]);
    expect(
      importCircles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });
});
