import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The rooms table of docs/architecture.md says which room may import which; this reads the table and
 * every import under src/ and holds one against the other, and finds no import circle among the
 * files. A new import that the table does not allow fails here: change the code, or the table (and
 * say why there).
 */

const root = resolve(import.meta.dirname, '..', '..');
const source = (file: string) => readFileSync(join(root, file), 'utf8');

interface Room {
  /** A folder (`src/events/`) or a file (`src/app-context.ts`); `src/modules/<resource>/` is `src/modules/`. */
  path: string;
  /** What it may import: a room's short name (`db`, `domain/findings`, `errors`) → types only. */
  allowed: Map<string, { typesOnly: boolean }>;
  /** `anything`: the composition (main, runtime, app, context, wiring). */
  anything: boolean;
}

/** The rows of the table whose header has "Room" and "May import". */
function roomsTable(markdown: string): Room[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\|\s*Room\s*\|/.test(line) && line.includes('May import'));
  if (header < 0) throw new Error('docs/architecture.md has no rooms table (| Room | … | May import |)');
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const columns = cells(lines[header] ?? '');
  const mayImport = columns.indexOf('May import');
  const rooms: Room[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    const allowedCell = row[mayImport] ?? '';
    const allowed = new Map<string, { typesOnly: boolean }>();
    for (const part of allowedCell.split(',')) {
      const named = /`([^`]+)`(.*)/.exec(part);
      if (named?.[1]) allowed.set(named[1], { typesOnly: /\(types\)/.test(named[2] ?? '') });
    }
    // A row may name several files of one kind (the composition): each is a room of its own.
    for (const match of (row[0] ?? '').matchAll(/`([^`]+)`/g)) {
      const path = (match[1] ?? '').replace('<resource>/', '');
      rooms.push({ path, allowed, anything: /^anything\b/.test(allowedCell) });
    }
  }
  return rooms;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((name) => {
    const path = `${directory}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    // Unit tests beside their code are not part of a room's imports.
    return /\.ts$/.test(name) && !/\.(d|test)\.ts$/.test(name) ? [path] : [];
  });
}

interface Import {
  target: string;
  typesOnly: boolean;
}

const parsedImports = new Map<string, Import[]>();

/** The files of this repository a file imports (relative specifiers), and whether only types. */
function importsOf(file: string): Import[] {
  const known = parsedImports.get(file);
  if (known) return known;
  const parsed = ts.createSourceFile(file, source(file), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (specifier: ts.Expression | undefined, typesOnly: boolean) => {
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return;
    const target = relative(root, resolve(root, dirname(file), specifier.text))
      .split('\\')
      .join('/');
    found.push({ target, typesOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const everyNameIsType =
        clause !== undefined &&
        clause.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      add(node.moduleSpecifier, clause?.isTypeOnly === true || everyNameIsType);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined
    ) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(parsed);
  parsedImports.set(file, found);
  return found;
}

const files = sourceFiles('src');
const rooms = roomsTable(source('docs/architecture.md'));

/** The room a file belongs to: the longest path of the table it starts with. */
function roomOf(file: string): Room | undefined {
  return rooms
    .filter((room) => (room.path.endsWith('/') ? file.startsWith(room.path) : file === room.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/** A short name of the table (`db`, `errors`, `domain/findings`) as the path it stands for. */
function pathOfName(name: string): string {
  const folder = `src/${name}/`;
  return existsSync(join(root, folder)) ? folder : `src/${name}.ts`;
}

describe('the rooms table of docs/architecture.md', () => {
  it('names a room for every file under src/', () => {
    expect(files.filter((file) => roomOf(file) === undefined)).toEqual([]);
  });

  it('allows every import between rooms that the code makes', () => {
    const refused: string[] = [];
    for (const file of files) {
      const from = roomOf(file);
      if (!from || from.anything) continue;
      for (const { target, typesOnly } of importsOf(file)) {
        const to = roomOf(target);
        if (!to || to === from || to.path === from.path) continue;
        const allowance = [...from.allowed].find(([name]) => {
          const path = pathOfName(name);
          return path.endsWith('/') ? to.path.startsWith(path) : to.path === path;
        });
        if (!allowance) refused.push(`${file} → ${target}: ${from.path} may not import ${to.path}`);
        else if (allowance[1].typesOnly && !typesOnly)
          refused.push(`${file} → ${target}: ${from.path} may import only types of ${to.path}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('reads the rows it checks (a table that could not be read would allow nothing and prove nothing)', () => {
    const events = rooms.find((room) => room.path === 'src/events/');
    expect(events?.allowed.has('db')).toBe(true);
    expect(rooms.find((room) => room.path === 'src/lib/')?.allowed.size).toBe(0);
  });
});

describe('imports under src/', () => {
  it('run in no circle', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).map((found) => found.target)]));
    // Tarjan's strongly connected components: any with two files or more is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const connect = (file: string) => {
      index.set(file, next);
      low.set(file, next);
      next += 1;
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          connect(target);
          low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
        } else if (onStack.has(target)) {
          low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
        }
      }
      if (low.get(file) === index.get(file)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const file of files) if (!index.has(file)) connect(file);
    expect(circles).toEqual([]);
  });
});
