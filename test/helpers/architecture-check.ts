/**
 * The house rules of src/'s layout, checked over an import graph (import-scan.ts) against the layer
 * picture of docs/architecture.md: no circle between files, no cycle between top-level folders, no
 * folder importing a folder of a higher layer, and every top-level folder placed in the picture.
 * A pure function of its inputs, so the tests prove each rule on small synthetic graphs.
 */
import type { ImportEdge, ImportGraph } from './import-scan.js';

/** One row of the picture: its name and the units in it. Rows run from the top layer down. */
export interface Layer {
  name: string;
  units: string[];
}

/** A broken rule, said in one line that names the files or folders involved. */
export interface ArchitectureProblem {
  rule: 'file-circle' | 'folder-cycle' | 'upward-import' | 'unplaced-folder' | 'unknown-folder';
  message: string;
}

/**
 * The unit a file of src/ belongs to: its top-level folder (`render/render.ts` → `render`); the
 * library entry `index.ts` is its own unit; every other file directly in src/ is `*.ts`.
 */
export function unitOf(file: string): string {
  const slash = file.indexOf('/');
  if (slash >= 0) return file.slice(0, slash);
  return file === 'index.ts' ? 'index.ts' : '*.ts';
}

/**
 * The layer picture: the first fenced block with the info string `layers` in `markdown`. Each line
 * `name | unit unit …` is a layer, the top one first; other lines (arrows, notes) are ignored.
 */
export function parseLayers(markdown: string): Layer[] {
  const block = /^```layers[^\n]*\n([\s\S]*?)^```/m.exec(markdown);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  return block[1]!
    .split('\n')
    .filter((l) => l.includes('|'))
    .map((l) => {
      const [name, units] = l.split('|') as [string, string];
      return { name: name.trim(), units: units.trim().split(/\s+/).filter(Boolean) };
    });
}

/** The strongly connected components of a graph with more than one node, or one node importing itself (Tarjan). */
function cycles(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || next(v).includes(v)) out.push(scc.sort());
    }
  };
  for (const n of [...nodes].sort()) if (!idx.has(n)) visit(n);
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** One circle through a strongly connected set, from its first member back to it, as the imports run. */
function circleIn(scc: readonly string[], next: (n: string) => readonly string[]): string[] {
  const members = new Set(scc);
  const start = scc[0]!;
  // Shortest path from start back to start (BFS), so the named circle is as short as it can be.
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...next(v)].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Every broken rule of `graph` against `layers`; `folders` are the top-level entries of src/ that must be placed. */
export function checkArchitecture(
  graph: ImportGraph,
  layers: readonly Layer[],
  folders: readonly string[],
): ArchitectureProblem[] {
  const problems: ArchitectureProblem[] = [];
  const files = [...graph.keys()];
  const fileNext = (f: string) => (graph.get(f) ?? []).map((e) => e.to);
  for (const scc of cycles(files, fileNext)) {
    const circle = circleIn(scc, fileNext);
    // The shortest circle is named in order; a knot of more files than that is listed after it.
    const knot =
      scc.length > circle.length - 1
        ? ` (one circle of a knot of ${scc.length} files: ${scc.map((f) => `src/${f}`).join(', ')})`
        : '';
    problems.push({
      rule: 'file-circle',
      message: `import circle between files: ${circle.map((f) => `src/${f}`).join(' → ')}${knot}`,
    });
  }

  // Folder graph, with one import kept per folder pair to name in messages.
  const example = new Map<string, { file: string; edge: ImportEdge }>();
  const unitDeps = new Map<string, Set<string>>();
  for (const [file, edges] of graph) {
    const from = unitOf(file);
    if (!unitDeps.has(from)) unitDeps.set(from, new Set());
    for (const edge of edges) {
      const to = unitOf(edge.to);
      if (to === from) continue;
      unitDeps.get(from)!.add(to);
      const key = `${from}\u0000${to}`;
      if (!example.has(key)) example.set(key, { file, edge });
    }
  }
  const unitNext = (u: string) => [...(unitDeps.get(u) ?? [])].sort();
  const cite = (a: string, b: string) => {
    const e = example.get(`${a}\u0000${b}`)!;
    return `src/${e.file}:${e.edge.line} imports '${e.edge.specifier}'`;
  };
  for (const scc of cycles([...unitDeps.keys()], unitNext)) {
    const circle = circleIn(scc, unitNext);
    const steps = circle.slice(0, -1).map((u, i) => `${u} → ${circle[i + 1]} (${cite(u, circle[i + 1]!)})`);
    const knot =
      scc.length > circle.length - 1 ? ` (one cycle of a knot of ${scc.length} folders: ${scc.join(', ')})` : '';
    problems.push({
      rule: 'folder-cycle',
      message: `import cycle between folders ${circle.join(' → ')}: ${steps.join('; ')}${knot}`,
    });
  }

  const layerOf = new Map<string, number>();
  layers.forEach((layer, i) => layer.units.forEach((u) => layerOf.set(u, i)));
  for (const folder of [...folders].sort()) {
    if (!layerOf.has(folder))
      problems.push({
        rule: 'unplaced-folder',
        message: `src/${folder === '*.ts' ? '*.ts (files directly in src/)' : folder} is in no layer of docs/architecture.md: add it to the row of the layer it belongs to`,
      });
  }
  for (const unit of [...layerOf.keys()].sort()) {
    if (!folders.includes(unit))
      problems.push({
        rule: 'unknown-folder',
        message: `docs/architecture.md places ${unit}, which is not in src/: remove it from the picture or fix its name`,
      });
  }
  // Rows run top first, so a lower row has a higher index: importing a smaller index climbs up.
  for (const [file, edges] of graph) {
    const from = unitOf(file);
    for (const edge of edges) {
      const to = unitOf(edge.to);
      const a = layerOf.get(from);
      const b = layerOf.get(to);
      if (a === undefined || b === undefined || b >= a) continue;
      problems.push({
        rule: 'upward-import',
        message: `src/${file}:${edge.line} imports '${edge.specifier}': ${from} (layer "${layers[a]!.name}") may not import ${to} (layer "${layers[b]!.name}", above it)`,
      });
    }
  }
  return problems;
}
