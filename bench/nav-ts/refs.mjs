// bench/nav-ts/refs.mjs — the reference side of bench/nav_ts_bench.py: the
// TypeScript compiler's own answer to "where is this function used".
//
//     node bench/nav-ts/refs.mjs < request.json > answer.json
//
// request: {"root": DIR, "package": PACKAGE_JSON_PATH or null, "limit": N,
//           "queries": [{"name": N, "path": P, "line": L}, ...]}
//   root     the tree of .ts/.tsx sources (paths in queries and answers are
//            relative to it)
//   package  the package's package.json: each entry of its "exports" whose
//            conditions name a .ts source under root becomes a `paths`
//            mapping, so the tests' `import ... from "zod/v4"` reach the
//            sources as they do in the package's own repository
//   queries  a definition memgate knows: its name, file and first line
//   limit    stop once this many queries were located and this many of
//            names the program declares once (0: all)
//
// One LanguageService over every .ts/.tsx file under root (strict, ES2022,
// bundler resolution). For each query the declaration whose name is N is
// found in P at or after line L (the nearest), and findReferences is asked
// at its name. Every entry that is not a definition (isDefinition), not
// inside a string, and whose text is N itself is a reference, kept as
// (path, line). Entries whose text is another name (an import or export
// renamed with `as`) are counted apart: a name-based tool cannot follow them.
// Call edges: prepareCallHierarchy at the same name, then
// provideCallHierarchyIncomingCalls; each call site (fromSpans) under root
// as (path, line); a site whose callee is spelled otherwise (an export
// renamed with `as`) goes to calls_renamed, as references do.
//
// answer: {"typescript": VERSION, "files": N, "program_ms": MS,
//          "results": [{"name", "located": bool, "declared": N,
//                       "refs": [[path, line]...], "renamed": N,
//                       "calls": [[path, line]...], "calls_renamed": [...],
//                       "calls_ms": MS,
//                       "renamed_as": [the first 3 spellings],
//                       "definitions": N, "ms": MS}]}
//   declared  how many declarations the whole program, lib files included,
//             gives the name (imports, exports and `{ name }` shorthand not
//             counted): 1 when the name means one thing
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const req = JSON.parse(fs.readFileSync(0, "utf8"));
const root = path.resolve(req.root);

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") walk(p, out);
    } else if (/\.(ts|tsx|mts|cts)$/.test(e.name)) {
      out.push(p);
    }
  }
  return out;
}
const files = walk(root, []).sort();

// `paths` from the package's exports: "./v4" -> "NAME/v4" -> the .ts source
const paths = {};
if (req.package) {
  const pkg = JSON.parse(fs.readFileSync(req.package, "utf8"));
  const pkgDir = path.dirname(path.resolve(req.package));
  const firstTs = (v) => {
    if (typeof v === "string") return /\.(ts|tsx)$/.test(v) && !v.endsWith(".d.ts") ? v : null;
    if (v && typeof v === "object") for (const k of Object.keys(v)) { const s = firstTs(v[k]); if (s) return s; }
    return null;
  };
  for (const [key, val] of Object.entries(pkg.exports || {})) {
    const src = firstTs(val);
    if (!src || key.includes("*")) continue;
    const abs = path.resolve(pkgDir, src);
    if (!abs.startsWith(root + path.sep)) continue;
    paths[key === "." ? pkg.name : pkg.name + key.slice(1)] = [abs];
  }
}

const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  allowJs: false,
  jsx: ts.JsxEmit.Preserve,
  baseUrl: root,
  paths,
};

const texts = new Map();
const text = (f) => {
  if (!texts.has(f)) texts.set(f, fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined);
  return texts.get(f);
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => {
    const t = text(f);
    return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t);
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => fs.existsSync(f),
  readFile: (f) => text(f),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());

let t0 = performance.now();
const program = ls.getProgram();
program.getTypeChecker();
const programMs = performance.now() - t0;

// the identifier that names a declaration called `name` in `sf`, at or after
// `line` (1-based) and nearest to it; else the nearest before
function locate(sf, name, line) {
  let best = null;
  let bestScore = Infinity;
  const visit = (node) => {
    if (ts.isIdentifier(node) && node.text === name && node.parent && ts.getNameOfDeclaration(node.parent) === node) {
      const l = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const score = l >= line ? l - line : 1e6 + (line - l);
      if (score < bestScore) { best = node; bestScore = score; }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return best;
}

// How many declarations the program (the lib files included) gives each
// name: functions, methods, classes, variables, parameters, properties,
// members of interfaces and object literals... but not the aliases an import
// or export makes, nor `{ name }` shorthand (a use of a variable).
const declared = new Map();
const aliases = new Set([ts.SyntaxKind.ImportSpecifier, ts.SyntaxKind.ExportSpecifier, ts.SyntaxKind.ImportClause,
  ts.SyntaxKind.NamespaceImport, ts.SyntaxKind.NamespaceExport, ts.SyntaxKind.ImportEqualsDeclaration,
  ts.SyntaxKind.ShorthandPropertyAssignment]);
for (const sf of program.getSourceFiles()) {
  const visit = (node) => {
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && node.parent && !aliases.has(node.parent.kind) &&
        ts.getNameOfDeclaration(node.parent) === node) {
      const k = ts.idText(node);
      declared.set(k, (declared.get(k) || 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const results = [];
let located = 0;
let once = 0;
for (const q of req.queries) {
  if (req.limit && located >= req.limit && once >= req.limit) break;
  const file = path.join(root, q.path);
  const sf = program.getSourceFile(file);
  const id = sf && locate(sf, q.name, q.line);
  const n = declared.get(q.name) || 0;
  if (!id) { results.push({ name: q.name, located: false, declared: n, refs: [], renamed: 0, definitions: 0, ms: 0, calls: [], calls_renamed: [], calls_ms: 0 }); continue; }
  if (req.limit && located >= req.limit && n !== 1) continue; // only the set of names declared once still wants more
  if (n === 1) once++;
  located++;
  t0 = performance.now();
  const found = ls.findReferences(file, id.getStart(sf)) || [];
  const ms = performance.now() - t0;
  const refs = new Set();
  let renamed = 0;
  const renamedAs = [];
  let definitions = 0;
  for (const group of found) {
    for (const r of group.references) {
      if (r.isDefinition) { definitions++; continue; }
      if (r.isInString) continue;
      const t = text(r.fileName);
      const spelled = t === undefined ? "" : t.slice(r.textSpan.start, r.textSpan.start + r.textSpan.length);
      if (spelled !== q.name) {
        if (renamed++ < 3) renamedAs.push(spelled);
        continue;
      }
      if (!r.fileName.startsWith(root + path.sep)) continue;
      const rsf = program.getSourceFile(r.fileName);
      const l = rsf.getLineAndCharacterOfPosition(r.textSpan.start).line + 1;
      refs.add(JSON.stringify([path.relative(root, r.fileName), l]));
    }
  }
  t0 = performance.now();
  const calls = new Set();
  const callsRenamed = new Set(); // the callee spelled otherwise: `checks.gte(...)` for `_gte` exported `as gte`
  const items = ls.prepareCallHierarchy(file, id.getStart(sf));
  for (const it of Array.isArray(items) ? items : items ? [items] : []) {
    for (const inc of ls.provideCallHierarchyIncomingCalls(it.file, it.selectionSpan.start)) {
      if (!inc.from.file.startsWith(root + path.sep)) continue;
      const csf = program.getSourceFile(inc.from.file);
      const ct = text(inc.from.file) || "";
      for (const sp of inc.fromSpans) {
        const site = JSON.stringify([path.relative(root, inc.from.file), csf.getLineAndCharacterOfPosition(sp.start).line + 1]);
        const spelled = (ct.slice(sp.start, sp.start + sp.length).match(/[\w$]+$/) || [""])[0];
        (spelled === q.name ? calls : callsRenamed).add(site);
      }
    }
  }
  const callsMs = performance.now() - t0;
  results.push({ name: q.name, located: true, declared: n, refs: [...refs].map((s) => JSON.parse(s)), renamed, renamed_as: renamedAs, definitions, ms,
    calls: [...calls].map((s) => JSON.parse(s)), calls_renamed: [...callsRenamed].map((s) => JSON.parse(s)), calls_ms: callsMs });
}

process.stdout.write(JSON.stringify({ typescript: ts.version, files: files.length, paths: Object.keys(paths).length, program_ms: programMs, results }));
