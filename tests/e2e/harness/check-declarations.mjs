// Check every stand-in of the harness against the community Foundry type declarations.
//
// For each flavour (V12, V13, V14) the harness builds its Foundry globals without a page, and
// this script walks the list of stand-ins the harness declares (STAND_INS in foundry/index.mjs).
// Each entry names the declaration it imitates: a class or interface member, a top-level
// function, or a hook. The declaration files of that flavour's types package (an npm alias in
// package.json) are parsed with the TypeScript compiler, and the script fails when a stand-in
// imitates something the declarations do not have, or takes a number of parameters that no
// overload of the declaration accepts.
//
// Usage: node tests/e2e/harness/check-declarations.mjs   (prints one line per stand-in; exit 1
// on any mismatch).

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

import { createFoundry, FLAVOURS, standInsFor } from "./foundry/index.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");

/** Every .d.mts/.d.ts file under a folder. */
function declarationFiles(folder) {
  const out = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...declarationFiles(full));
    else if (/\.d\.m?ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** Parameter counts of a signature-like node: required count, total count, rest or not. */
function arity(parameters) {
  let required = 0;
  let rest = false;
  // A TypeScript `this` parameter types the receiver; it is not an argument.
  parameters = [...parameters].filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this"));
  for (const p of parameters) {
    if (p.dotDotDotToken) rest = true;
    else if (!p.questionToken && !p.initializer) required += 1;
  }
  const total = parameters.length - (rest ? 1 : 0);
  return { required, total, rest };
}

/** The declared signatures of a member node, or a "property" marker. */
function signaturesOf(member) {
  if (ts.isMethodDeclaration(member) || ts.isMethodSignature(member) || ts.isFunctionDeclaration(member)) {
    return [arity(member.parameters)];
  }
  if ((ts.isPropertySignature(member) || ts.isPropertyDeclaration(member)) && member.type) {
    if (ts.isFunctionTypeNode(member.type)) return [arity(member.type.parameters)];
    return ["property"];
  }
  if (ts.isGetAccessorDeclaration(member) || ts.isPropertySignature(member) || ts.isPropertyDeclaration(member)) {
    return ["property"];
  }
  return [];
}

function memberName(member) {
  const n = member.name;
  if (!n) return null;
  if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) return n.text;
  return null;
}

/**
 * Index one types package: owner name → member name → [{static, signatures, file}],
 * and top-level function name → [{signatures, file}].
 */
function indexPackage(packageDir) {
  const owners = new Map();
  const functions = new Map();
  const add = (map, key, value) => {
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(value);
  };
  const folder = fs.existsSync(path.join(packageDir, "src")) ? path.join(packageDir, "src") : packageDir;
  for (const file of declarationFiles(folder)) {
    const relative = path.relative(packageDir, file);
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    const visit = (node) => {
      if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name) {
        const members = owners.get(node.name.text) ?? new Map();
        owners.set(node.name.text, members);
        for (const member of node.members) {
          const name = memberName(member);
          if (!name) continue;
          const isStatic = (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static) !== 0;
          add(members, name, { static: isStatic, signatures: signaturesOf(member), file: relative });
        }
      } else if (ts.isTypeAliasDeclaration(node) && ts.isFunctionTypeNode(node.type)) {
        // Function types by name: the signature of a document hook (`Hooks.UpdateDocument`).
        add(functions, node.name.text, { signatures: [arity(node.type.parameters)], file: relative });
      } else if (ts.isFunctionDeclaration(node) && node.name) {
        add(functions, node.name.text, { signatures: signaturesOf(node), file: relative });
      } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
        add(functions, node.name.text, { signatures: ["property"], file: relative });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { owners, functions };
}

/** Parameter counts of a JavaScript function from its source text. */
function standInArity(fn) {
  const text = fn.toString();
  const candidates = [`(${text})`, `({${text}})`, `(class { ${text} })`];
  for (const candidate of candidates) {
    const source = ts.createSourceFile("standin.js", candidate, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    if (source.parseDiagnostics?.length) continue;
    let found = null;
    const visit = (node) => {
      if (found) return;
      if (
        ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) ||
        ts.isFunctionDeclaration(node)
      ) {
        found = arity(node.parameters);
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (found) return found;
  }
  throw new Error(`cannot read the parameters of stand-in ${text.slice(0, 60)}`);
}

/** The value at a dotted path of the built globals (a prototype's getter is not called). */
function valueAt(globals, dotted) {
  let value = globals;
  let previous = null;
  for (const part of dotted.split(".")) {
    if (value == null) return undefined;
    if (previous === "prototype") {
      const descriptor = Object.getOwnPropertyDescriptor(value, part);
      if (!descriptor) return undefined;
      value = descriptor.get ? "getter" : descriptor.value;
    } else {
      value = value[part];
    }
    previous = part;
  }
  return value;
}

/** Whether a stand-in with `mine` parameters fits a declared signature. */
function fits(mine, declared) {
  if (declared === "property") return false;
  if (mine.rest) return declared.rest || declared.total >= mine.total;
  return mine.total >= declared.required && (mine.total <= declared.total || declared.rest);
}

function checkFlavour(generation) {
  const flavour = FLAVOURS[generation];
  const packageDir = path.join(root, "node_modules", flavour.types);
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
  const indexes = new Map([[flavour.types, indexPackage(packageDir)]]);
  const indexFor = (types) => {
    if (!indexes.has(types)) indexes.set(types, indexPackage(path.join(root, "node_modules", types)));
    return indexes.get(types);
  };
  const globals = createFoundry(generation, { document: null });
  // HARNESS_DRIFT=path swaps one stand-in for a five-parameter function: the self-test that
  // proves this check notices a stand-in drifting from the declarations.
  const drift = process.env.HARNESS_DRIFT;
  if (drift) {
    const parts = drift.split(".");
    const owner = valueAt(globals, parts.slice(0, -1).join(".")) ?? globals;
    owner[parts.at(-1)] = function drifted(a, b, c, d, e) {};
  }
  const problems = [];
  let checked = 0;
  for (const entry of standInsFor(generation)) {
    const where = `V${generation} ${entry.path}`;
    const value = entry.hook ? null : valueAt(globals, entry.path);
    if (value === undefined) {
      problems.push(`${where}: the harness does not define it`);
      continue;
    }
    const index = indexFor(entry.types ?? flavour.types);
    const owners = [entry.owner].flat();
    const declaredBy = (name) => owners.flatMap((o) => index.owners.get(o)?.get(name) ?? []);
    let candidates;
    if (entry.documentHook) {
      // A document hook (`updateCombat`) is `update${Document.Type}` in hooks.d.mts, typed by
      // one function type for every document (`Hooks.UpdateDocument`).
      candidates = (index.functions.get(entry.documentHook) ?? []).filter((d) => d.file.includes("hooks"));
    } else if (entry.hook) {
      candidates = declaredBy(entry.hook).map((d) => ({ ...d, static: false }));
    } else if (entry.owner) {
      candidates = declaredBy(entry.member).filter((d) => Boolean(d.static) === Boolean(entry.static));
    } else {
      candidates = index.functions.get(entry.member) ?? [];
    }
    if (entry.file) candidates = candidates.filter((d) => d.file.includes(entry.file));
    const declared = entry.documentHook ? `Hooks.${entry.documentHook}` : `${owners.join("|") || "top level"}${entry.static ? "." : "#"}${entry.hook ?? entry.member}`;
    if (!candidates.length) {
      problems.push(`${where}: ${entry.types ?? `${flavour.types}@${version}`} declares no ${declared}${entry.file ? ` in ${entry.file}` : ""}`);
      continue;
    }
    const signatures = candidates.flatMap((d) => d.signatures);
    if (entry.kind === "property") {
      if (!signatures.length) problems.push(`${where}: ${declared} has no readable declaration`);
    } else if (entry.hook) {
      // A hook stand-in is the argument list the harness passes to the listeners.
      const passed = entry.arguments;
      if (!signatures.some((s) => s !== "property" && passed >= s.required && (passed <= s.total || s.rest))) {
        problems.push(`${where}: passes ${passed} arguments; declared ${JSON.stringify(signatures)}`);
      }
    } else {
      if (typeof value !== "function") {
        problems.push(`${where}: declared as a function but the stand-in is ${typeof value}`);
        continue;
      }
      const mine = standInArity(value);
      if (!signatures.some((s) => fits(mine, s))) {
        problems.push(`${where}: takes ${JSON.stringify(mine)}; declared ${declared} ${JSON.stringify(signatures)}`);
      }
    }
    checked += 1;
  }
  for (const absent of flavour.absent) {
    if (valueAt(globals, absent) !== undefined) problems.push(`V${generation} ${absent}: should be absent`);
  }
  console.log(`V${generation}: ${checked} stand-ins checked against ${flavour.types}@${version}`);
  return problems;
}

const problems = Object.keys(FLAVOURS).flatMap((g) => checkFlavour(Number(g)));
for (const p of problems) console.log(`MISMATCH ${p}`);
process.exit(problems.length ? 1 : 0);
