// Finds the types a user meets in agentcage's public signatures but cannot name: every declaration
// of the installed package's .d.ts files reachable from what "agentcage" and its subpaths export
// must itself be exported from one of them. Invariant: only the package's own declarations
// are held to this; a dependency's types (dockerode's, pino's, node's) are that dependency's.

import path from "node:path";
import ts from "typescript";

/** Each unexported declaration reached from an entry point, as "Name (dist/file.d.ts), reached from Export". */
export function unnamedPublicTypes(projectDir: string, rootFile: string, entryPoints: readonly string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(projectDir, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (config === undefined) throw new Error(`cannot read ${projectDir}/tsconfig.json`);
  const program = ts.createProgram({ rootNames: [path.join(projectDir, rootFile)], options: config.options });
  const checker = program.getTypeChecker();
  const packageDir = `${path.sep}node_modules${path.sep}agentcage${path.sep}`;
  const ours = (declaration: ts.Node): boolean => declaration.getSourceFile().fileName.includes(packageDir);
  const resolve = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

  const exported = new Set<ts.Symbol>();
  const queue: Array<{ symbol: ts.Symbol; from: string }> = [];
  const addModuleExports = (moduleSymbol: ts.Symbol, prefix: string): void => {
    for (const member of checker.getExportsOfModule(moduleSymbol)) {
      const target = resolve(member);
      if (exported.has(target)) continue;
      exported.add(target);
      queue.push({ symbol: target, from: `${prefix}${member.name}` });
    }
  };
  const source = program.getSourceFile(path.join(projectDir, rootFile));
  if (source === undefined) throw new Error(`${rootFile} is not in the program`);
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!entryPoints.includes(statement.moduleSpecifier.text)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (moduleSymbol === undefined) throw new Error(`${statement.moduleSpecifier.text} does not resolve from ${rootFile}`);
    addModuleExports(moduleSymbol, `${statement.moduleSpecifier.text}: `);
  }

  const unnamed = new Map<string, string>();
  const visited = new Set<ts.Symbol>();
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { symbol, from } = next;
    if (visited.has(symbol)) continue;
    visited.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      if (!ours(declaration)) continue;
      if (ts.isSourceFile(declaration)) {
        addModuleExports(symbol, `${from}.`); // `export * as limits`: its members are public too
        continue;
      }
      const visit = (node: ts.Node): void => {
        const name = referencedName(node);
        const found = name === undefined ? undefined : checker.getSymbolAtLocation(name);
        if (found !== undefined) {
          const target = resolve(found);
          const declared = (target.declarations ?? []).filter(ours);
          if (declared.length > 0 && !(target.flags & ts.SymbolFlags.TypeParameter)) {
            if (!exported.has(target)) {
              const file = path.relative(projectDir, declared[0]?.getSourceFile().fileName ?? "");
              unnamed.set(`${target.name} (${file})`, from);
            }
            if (!visited.has(target)) queue.push({ symbol: target, from });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(declaration);
    }
  }
  return [...unnamed].map(([what, from]) => `${what}, reached from ${from}`).sort();
}

/**
 * The name a type position refers to: `Foo`, `ns.Foo`, `import("./x.js").Foo`. Not `typeof value`:
 * a value's type needs no name of its own (a zod schema behind `z.input<typeof schema>`, say).
 */
function referencedName(node: ts.Node): ts.Node | undefined {
  const last = (name: ts.EntityName): ts.Node => (ts.isQualifiedName(name) ? name.right : name);
  if (ts.isTypeReferenceNode(node)) return last(node.typeName);
  if (ts.isExpressionWithTypeArguments(node)) return node.expression;
  if (ts.isImportTypeNode(node) && node.qualifier !== undefined) return last(node.qualifier);
  return undefined;
}

/**
 * Each name `entryFile` exports whose declaration has no doc comment of its own, as TypeDoc would
 * find none: an alias is followed to what it names; `export * as ns` is documented on that export.
 * Works over the source (src/index.ts) or over an installed package's .d.ts alike.
 */
export function undocumentedExports(projectDir: string, entryFile: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(projectDir, "tsconfig.json"),
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (config === undefined) throw new Error(`cannot read ${projectDir}/tsconfig.json`);
  const file = path.join(projectDir, entryFile);
  const program = ts.createProgram({ rootNames: [file], options: config.options });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`${entryFile} is not a module in the program`);
  const hasDoc = (node: ts.Node): boolean => ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc) && doc.comment !== undefined);
  const documented = (member: ts.Symbol): boolean => {
    const target = member.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(member) : member;
    if (target.getDocumentationComment(checker).length > 0) return true;
    // A namespace re-export (`export * as limits from "./limits.js"`): its doc is on the export itself.
    for (
      let alias: ts.Symbol | undefined = member;
      alias !== undefined && alias.flags & ts.SymbolFlags.Alias;
      alias = checker.getImmediateAliasedSymbol(alias)
    ) {
      if ((alias.declarations ?? []).some((node) => ts.isNamespaceExport(node) && hasDoc(node.parent))) return true;
    }
    return false;
  };
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter((member) => !documented(member))
    .map((member) => member.name)
    .sort();
}
